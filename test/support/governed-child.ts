// Runs (or resumes) the fixture governed task in its own process, so tests can SIGKILL it at any moment.
//   node governed-child.ts <root> start|resume [delayMs]
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FrameFactoryOptions } from '../../src/task/journal/frame-factory.ts';
import { openFileJournal } from '../../src/task/journal/file-journal.ts';
import type { Journal } from '../../src/task/journal/journal.ts';
import type { TaskPaths } from '../../src/task/layout.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, phaseModel } from './governed-fixture.ts';
import { markIdempotent, withLedger } from './tool-ledger.ts';

const [root, mode, delay] = process.argv.slice(2) as [string, 'start' | 'resume', string | undefined];
const delayMs = Number(delay ?? 0);
const base = phaseModel();
// Each model call takes a few milliseconds, so a kill can land inside a call, a tool, or a write.
const original = base.doGenerate.bind(base);
base.doGenerate = async (options) => {
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  return original(options);
};
// GOVERNED_CHILD_HANG=<tool> makes that tool hang once started (after touching <root>/tool-started), so a test can
// kill the run while a side effect is in flight.
const hang = process.env.GOVERNED_CHILD_HANG;
// GOVERNED_CHILD_LEDGER=<file> appends a line to <file> each time a tool runs (see tool-ledger.ts).
const ledger = process.env.GOVERNED_CHILD_LEDGER;
// GOVERNED_CHILD_IDEMPOTENT=<tool>[,<tool>…] marks those tools idempotent.
const idempotent = process.env.GOVERNED_CHILD_IDEMPOTENT?.split(',') ?? [];
const tools = (paths: TaskPaths) => {
  const scoped = markIdempotent(fixtureTools(paths), idempotent);
  return (ledger ? withLedger(scoped, ledger) : scoped).map((tool) =>
    tool.name !== hang
      ? tool
      : {
          ...tool,
          execute: async () => {
            await writeFile(join(root, 'tool-started'), '');
            return new Promise<never>(() => {});
          },
        },
  );
};
// GOVERNED_CHILD_KILL_AFTER_RESULT=<tool> kills this process the moment that tool's first `tool.result` frame is
// fsynced: the result is durable, and nothing the run did after it is journaled.
const killAfter = process.env.GOVERNED_CHILD_KILL_AFTER_RESULT;
// GOVERNED_CHILD_REQUIRE=<tool> starts the run with an approval required for every call of that tool.
const required = process.env.GOVERNED_CHILD_REQUIRE;
const runner = createRunner({
  model: base,
  tools,
  approvals: 'auto',
  ...(killAfter ? { journal: killingJournal(killAfter) } : {}),
});
const spec = required ? { approvals: { requireTools: [required] } } : {};
const handle = mode === 'start' ? await runner.startTask(root, spec) : await runner.resume(root);
const result = await runner.run(handle);
process.stdout.write(JSON.stringify({ finishReason: result.finishReason, deliverables: result.deliverables }));

// The file journal, except that the first tool.result of `tool` is flushed at once and the process then dies; what
// the run appends meanwhile is dropped, so that frame is the journal's last.
function killingJournal(tool: string) {
  return async (paths: TaskPaths, frames: FrameFactoryOptions): Promise<Journal> => {
    const journal = await openFileJournal(paths.events, frames);
    let dying = false;
    return {
      append(event) {
        if (dying) return { ...event, version: 'agent.events.v1', id: 'evt_dropped', seq: 0, ts: '' };
        const frame = journal.append(event);
        if (frame.type === 'tool.result' && frame.data?.tool === tool) {
          dying = true;
          void journal.flush().then(() => process.kill(process.pid, 'SIGKILL'));
        }
        return frame;
      },
      flush: () => (dying ? new Promise<never>(() => {}) : journal.flush()),
      read: () => journal.read(),
      close: () => journal.close(),
      get lastSeq() {
        return journal.lastSeq;
      },
      get durableSeq() {
        return journal.durableSeq;
      },
    };
  };
}
