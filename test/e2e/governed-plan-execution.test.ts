// execute_plan in a governed run: each call of a plan passes the tool gate and the policy and is journaled as a call
// of its own; the model gets one result for its plan.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { PLAN_TOOL_NAME } from '../../src/agent/plan-execution.ts';
import { createPolicy } from '../../src/policy/create-policy.ts';
import type { PolicyRule } from '../../src/policy/policy-types.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const lastIsToolResult = (options: LanguageModelV4CallOptions) => options.prompt.at(-1)?.role === 'tool';

const noDrafts: PolicyRule = {
  id: 'no-drafts',
  check: (request) =>
    request.kind === 'tool-call' && JSON.stringify(request).includes('draft.md')
      ? { effect: 'deny', reason: 'drafts stay out of the deliverables' }
      : undefined,
};

describe('execute_plan in a governed run', () => {
  it('journals each call of the plan, and the gate and the policy judge each one', async () => {
    const root = await makeTaskFolder();
    const calls: string[] = [];
    let answer: unknown;
    const model = phaseModel({
      act: (options) => {
        if (lastIsToolResult(options)) {
          answer = options.prompt.at(-1);
          return 'Wrote artifacts/summary.md.';
        }
        const write = (name: string) => ({ tool: 'write_artifact', input: { name, text: `${name}\n` } });
        const read = { tool: 'read_input', input: { name: 'input.txt' } };
        return {
          toolCalls: [
            { id: 'p', name: PLAN_TOOL_NAME, input: { calls: [write('summary.md'), read, write('draft.md')] } },
          ],
        };
      },
    });
    const result = await createRunner({
      model,
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'auto',
      policy: createPolicy({ rules: [noDrafts] }),
      planExecution: true,
    }).doTask(root);

    expect(result.finishReason).toBe('completed');
    // read_input is not among the plan's allowed tools; the policy denies the draft: only the summary is written.
    // (The one read_input is the gather phase's.)
    expect(calls).toEqual(['read_input:input.txt', 'write_artifact:summary.md']);
    expect(await readFile(join(root, 'progress', 'artifacts', 'summary.md'), 'utf8')).toBe('summary.md\n');
    const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
    const about = (type: string) =>
      frames.filter((frame) => frame.type === type).map((frame) => String(frame.data?.['tool_call_id']));
    expect(about('tool.call')).toContain('p:1');
    expect(about('tool.call')).not.toContain('p');
    const blocked = frames.filter((frame) => frame.type === 'tool.blocked' || frame.type === 'policy.blocked');
    expect(JSON.stringify(blocked)).toContain('read_input');
    expect(JSON.stringify(blocked)).toContain('drafts stay out of the deliverables');
    // One result for the model's one call, listing the three in order.
    expect(answer).toMatchObject({ role: 'tool', content: [{ toolCallId: 'p', toolName: PLAN_TOOL_NAME }] });
    const results = (answer as { content: Array<{ output: { value: { results: Array<Record<string, unknown>> } } }> })
      .content[0]?.output.value.results;
    expect(results?.map((entry) => [entry['tool'], entry['ok']])).toEqual([
      ['write_artifact', true],
      ['read_input', false],
      ['write_artifact', false],
    ]);
  });
});
