// One framework × one metric, in a fresh process: `node --expose-gc bench/loop/child.ts <framework> <metric> <json>`.
// The figures go back to the parent over the IPC channel, so framework logging on stdout cannot corrupt them.
import { FRAMEWORKS } from './frameworks.ts';
import { type CpuOptions, measureConstruct, measureCpu, measureHeap } from './measure.ts';

/** What the parent asks a child to measure. */
export type ChildRequest =
  | { metric: 'cpu'; options: CpuOptions }
  | { metric: 'heap'; steps: number; resultBytes: number }
  | { metric: 'construct'; agents: number };

async function main(): Promise<void> {
  const [id, json] = process.argv.slice(2);
  const framework = FRAMEWORKS.find((candidate) => candidate.id === id);
  if (!framework || !json || !process.send) throw new Error('usage: child.ts <framework> <request json> (over IPC)');
  const request = JSON.parse(json) as ChildRequest;
  const adapter = await framework.load();
  const figures =
    request.metric === 'cpu'
      ? await measureCpu(adapter, framework.id, request.options)
      : request.metric === 'heap'
        ? await measureHeap(adapter, framework.id, request.steps, request.resultBytes)
        : await measureConstruct(adapter, request.agents);
  process.send({ ok: true, figures }, () => process.exit(0));
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  if (process.send) process.send({ ok: false, error: message }, () => process.exit(1));
  else {
    console.error(message);
    process.exit(1);
  }
});
