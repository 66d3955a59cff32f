import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { createRunner } from '../../src/task/runner.ts';
import type { Loop } from '../../src/task/loop.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { startPostgres, type TempPostgres } from '../../test/support/postgres.ts';
import { createLoopModel } from '../loop/model-v4.ts';
import { checkRun, createScript, INPUT, type Script, TOOL_DESCRIPTION, TOOL_NAME } from '../loop/script.ts';
import { median, round } from './raw-floor.ts';

/** One framework's durable tool-call step. */
export type PeerFigure = { id: string; label: string; durableWith: string; msPerStep: number; runsMs: number[] };

/** agency against DBOS and LangGraph on the same machine, disk and PostgreSQL, in one run. */
export type PeerFigures = {
  steps: number;
  rounds: number;
  postgres: number;
  frameworks: PeerFigure[];
  /** agency's ms per step divided by each peer's. */
  ratios: Record<string, number>;
};

type Runner = { id: string; label: string; durableWith: string; run(): Promise<void>; close(): Promise<void> };

/**
 * The same workload in each framework: `steps` one-tool-call steps in a row, each a zero-latency model asking for one
 * tool call (`echo`), the tool answering, and the model giving its answer; each step is recorded durably, the tool
 * call before the tool runs. agency: one governed run whose loop makes each step an agent step of the runner (its
 * tool a `network` tool, so the call is journaled and fsynced before it runs, and the step committed at its end).
 * DBOS: one workflow whose model calls and tool call are steps checkpointed in Postgres. LangGraph:
 * `createReactAgent` with `PostgresSaver` and `durability: "sync"`, one thread per step. The figure is the median
 * over `rounds` runs of each (alternating) of the run's time divided by `steps`.
 */
export async function measurePeers({ dir, steps = 200, rounds = 3 }: { dir: string; steps?: number; rounds?: number }) {
  const pg = await startPostgres();
  const runners: Runner[] = [];
  try {
    runners.push(await agencyRunner(dir, steps), await dbosRunner(pg, steps), await langgraphRunner(pg, steps));
    for (const runner of runners) await runner.run(); // warm-up
    const times = new Map<string, number[]>(runners.map((runner) => [runner.id, []]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? runners : [...runners].reverse();
      for (const runner of order) {
        const started = performance.now();
        await runner.run();
        times.get(runner.id)?.push((performance.now() - started) / steps);
      }
    }
    const frameworks = runners.map(({ id, label, durableWith }) => {
      const runsMs = (times.get(id) ?? []).map((ms) => round(ms, 3));
      return { id, label, durableWith, msPerStep: round(median(runsMs), 3), runsMs };
    });
    const agency = frameworks[0]?.msPerStep ?? 0;
    const ratios = Object.fromEntries(frameworks.slice(1).map((peer) => [peer.id, round(agency / peer.msPerStep, 3)]));
    return { steps, rounds, postgres: pg.version, frameworks, ratios } satisfies PeerFigures;
  } finally {
    for (const runner of runners) await runner.close().catch(() => undefined);
    await pg.stop();
  }
}

async function agencyRunner(dir: string, steps: number): Promise<Runner> {
  const script = createScript();
  const echo = defineTool({
    name: TOOL_NAME,
    description: TOOL_DESCRIPTION,
    input: z.object({ text: z.string() }),
    effects: 'network',
    execute: ({ text }) => script.tool(text),
  });
  const loop: Loop = {
    name: 'bench-tool-steps',
    version: '1',
    async run(context) {
      let output = '';
      for (let n = 0; n < steps; n++) {
        script.reset(1);
        const step = { input: INPUT, phase: 'act', planSig: null, allow: () => true as const, maxIterations: 2 };
        output = (await context.agentStep(`step-${n}`, step)).output;
        checkRun(script, 1, 'agency');
      }
      return { reason: 'completed', output };
    },
  };
  const runner = createRunner({ model: createLoopModel(script), tools: [echo], loops: [loop], approvals: 'auto' });
  return {
    id: 'agency',
    label: 'agency',
    durableWith: 'its journal (a file; an fsync before the tool runs and one at the end of the step)',
    async run() {
      const root = await mkdtemp(path.join(dir, 'peer-agency-'));
      await mkdir(path.join(root, 'task'));
      await writeFile(path.join(root, 'task', 'brief.md'), '# Echo\n');
      const result = await runner.doTask(root, { loop: loop.name, budgets: { maxIterations: 2 * steps + 10 } });
      if (result.finishReason !== 'completed') throw new Error(`agency: the run ended ${result.finishReason}`);
    },
    close: async () => undefined,
  };
}

async function dbosRunner(pg: TempPostgres, steps: number): Promise<Runner> {
  const { DBOS } = await import('@dbos-inc/dbos-sdk');
  const script = createScript();
  const workflow = DBOS.registerWorkflow(
    async () => {
      for (let n = 0; n < steps; n++) {
        script.reset(1);
        const turn = await DBOS.runStep(async () => script.next(), { name: 'model' });
        if (turn.kind !== 'tool') throw new Error('dbos: the model did not call the tool');
        await DBOS.runStep(async () => script.tool(JSON.parse(turn.args).text as string), { name: 'tool' });
        await DBOS.runStep(async () => script.next(), { name: 'model' });
        checkRun(script, 1, 'dbos');
      }
    },
    { name: 'benchToolSteps' },
  );
  const systemDatabaseUrl = pg.url.replace(/\/postgres$/, '/dbos_bench');
  DBOS.setConfig({ name: 'agency-bench', systemDatabaseUrl, logLevel: 'error' });
  await DBOS.launch();
  return {
    id: 'dbos',
    label: 'DBOS',
    durableWith: 'PostgreSQL (a checkpoint per step of its workflow: model call, tool call, model call)',
    run: () => workflow(),
    close: () => DBOS.shutdown(),
  };
}

async function langgraphRunner(pg: TempPostgres, steps: number): Promise<Runner> {
  const { PostgresSaver } = await import('@langchain/langgraph-checkpoint-postgres');
  const { createReactAgent } = await import('@langchain/langgraph/prebuilt');
  const { LoopChatModel, echoTool } = await import('../loop/adapters/langgraph.ts');
  const script: Script = createScript();
  const checkpointer = PostgresSaver.fromConnString(pg.url);
  await checkpointer.setup();
  const agent = createReactAgent({ llm: new LoopChatModel(script), tools: [echoTool(script)], checkpointer });
  return {
    id: 'langgraph',
    label: 'LangGraph',
    durableWith: 'PostgresSaver, durability "sync" (a checkpoint per super-step: model, tools, model)',
    async run() {
      for (let n = 0; n < steps; n++) {
        script.reset(1);
        const config = { configurable: { thread_id: randomUUID() }, recursionLimit: 10, durability: 'sync' as const };
        await agent.invoke({ messages: [{ role: 'user', content: INPUT }] }, config);
        checkRun(script, 1, 'langgraph');
      }
    },
    close: () => checkpointer.end(),
  };
}
