// Runs (or resumes) the fixture governed task in its own process, so tests can SIGKILL it at any moment.
//   node governed-child.ts <root> start|resume [delayMs]
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
const runner = createRunner({ model: base, tools: (paths) => fixtureTools(paths), approvals: 'auto' });
const handle = mode === 'start' ? await runner.startTask(root) : await runner.resume(root);
const result = await runner.run(handle);
process.stdout.write(JSON.stringify({ finishReason: result.finishReason, deliverables: result.deliverables }));
