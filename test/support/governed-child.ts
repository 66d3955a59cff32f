// Runs (or resumes) the fixture governed task in its own process, so tests can SIGKILL it at any moment.
//   node governed-child.ts <root> start|resume [delayMs]
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TaskPaths } from '../../src/task/layout.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, phaseModel } from './governed-fixture.ts';

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
const tools = (paths: TaskPaths) =>
  fixtureTools(paths).map((tool) =>
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
// GOVERNED_CHILD_REQUIRE=<tool> starts the run with an approval required for every call of that tool.
const required = process.env.GOVERNED_CHILD_REQUIRE;
const runner = createRunner({ model: base, tools, approvals: 'auto' });
const spec = required ? { approvals: { requireTools: [required] } } : {};
const handle = mode === 'start' ? await runner.startTask(root, spec) : await runner.resume(root);
const result = await runner.run(handle);
process.stdout.write(JSON.stringify({ finishReason: result.finishReason, deliverables: result.deliverables }));
