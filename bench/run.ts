// `npm run bench -- <name> [options]`: runs one benchmark, or every benchmark when no name is given.

type Benchmark = { description: string; run(args: string[]): Promise<void> };

const BENCHMARKS: Record<string, Benchmark> = {
  loop: {
    description: 'agent-loop overhead against the AI SDK, OpenAI Agents, LangGraph and Mastra',
    run: async (args) => (await import('./loop/main.ts')).main(args),
  },
  journal: {
    description: 'journal append cost, group commit, fsync per event against the raw floor, state checkpoints',
    run: async (args) => (await import('./journal/main.ts')).main(args),
  },
  server: {
    description:
      'GET /agent/tasks/{id} against bare node:http, journal → stream latency with 100 subscribers, events/s',
    run: async (args) => (await import('./server/main.ts')).main(args),
  },
  fleet: {
    description:
      'task dispatch through a worker against spawning its executor directly; discovery: a new worker, 50 polled',
    run: async (args) => (await import('./fleet/main.ts')).main(args),
  },
  memory: {
    description:
      'SQLite and PostgreSQL memory stores: text recall at 100k and 1M entries, vector top-10, LangGraph beside',
    run: async (args) => (await import('./memory/main.ts')).main(args),
  },
  cli: {
    description: 'start-up of `agency --help` and `agency status` against a bare Node process and peer CLIs',
    run: async (args) => (await import('./cli/main.ts')).main(args),
  },
  queue: {
    description:
      'raw pg-boss and graphile-worker on one PostgreSQL: jobs/s, enqueue → start; a heartbeat and a poll on the server',
    run: async (args) => (await import('./queue/main.ts')).main(args),
  },
};

const [name, ...args] = process.argv.slice(2);
if (name === '--help' || name === '-h') {
  console.log('npm run bench -- [name] [options]\n');
  for (const [key, benchmark] of Object.entries(BENCHMARKS))
    console.log(`  ${key.padEnd(10)} ${benchmark.description}`);
} else if (name === undefined || name.startsWith('-')) {
  for (const benchmark of Object.values(BENCHMARKS)) await benchmark.run(name === undefined ? [] : [name, ...args]);
} else {
  const benchmark = BENCHMARKS[name];
  if (!benchmark) {
    console.error(`Unknown benchmark "${name}". Known: ${Object.keys(BENCHMARKS).join(', ')}`);
    process.exitCode = 2;
  } else {
    await benchmark.run(args);
  }
}
