// A sandbox that cannot enforce a limit on this host says so in its result; a governed run journals that as a
// `warning` event once, however many calls carry it, and only for exec tools.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { FIXTURE_PLAN, fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const UNCAPPED = 'limits.processes (1024) is not enforced: agency runs as root, …';

describe('a governed run whose sandbox reports an unenforced limit', () => {
  it('journals the warning once, named after the tool, and ignores warnings from other tools', async () => {
    const root = await makeTaskFolder();
    const exec = defineTool({
      name: 'sandbox_exec',
      description: 'Stands in for the sandbox: its result carries the run warnings',
      input: z.object({ command: z.array(z.string()) }),
      effects: 'exec',
      idempotent: false,
      execute: async () => ({ exit_code: 0, stdout: '', warnings: [UNCAPPED] }),
    });
    const chatty = defineTool({
      name: 'lookup',
      description: 'A read tool whose output has a warnings field of its own',
      input: z.object({}),
      effects: 'read',
      execute: async () => ({ warnings: ['not for the journal'] }),
    });
    const plan = { ...FIXTURE_PLAN, allowed_tools: ['write_artifact', 'sandbox_exec', 'lookup'] };
    plan.steps = [{ id: 's1', title: 'Build and write', tools: ['sandbox_exec', 'lookup', 'write_artifact'] }];
    let acted = 0;
    const model = phaseModel({
      plan: () => JSON.stringify(plan),
      act: () => {
        acted++;
        if (acted <= 2) return { toolCalls: [{ id: `x${acted}`, name: 'sandbox_exec', input: { command: ['make'] } }] };
        if (acted === 3) return { toolCalls: [{ id: 'l1', name: 'lookup', input: {} }] };
        if (acted === 4) {
          return { toolCalls: [{ id: 'w1', name: 'write_artifact', input: { name: 'summary.md', text: 'ok\n' } }] };
        }
        return 'Done.';
      },
    });
    const runner = createRunner({
      model,
      tools: (paths) => [...fixtureTools(paths), exec, chatty],
      approvals: 'auto',
    });
    const result = await runner.doTask(root, {}, { view: 'full' });

    expect(result.finishReason).toBe('completed');
    expect(result.warnings).toEqual([`sandbox_exec: ${UNCAPPED}`]);
    const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
    const ran = frames.flatMap((frame) =>
      frame.type === 'tool.result' ? [(frame.data as { tool?: string } | undefined)?.tool] : [],
    );
    expect(ran).toEqual(['read_input', 'sandbox_exec', 'sandbox_exec', 'lookup', 'write_artifact']);
    const warnings = frames.filter((frame) => frame.type === 'warning').map((frame) => frame.message);
    expect(warnings).toEqual([`sandbox_exec: ${UNCAPPED}`]);
  }, 30_000);
});
