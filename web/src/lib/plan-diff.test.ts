import { describe, expect, it } from 'vitest';
import type { Plan } from '../api/types.ts';
import { diffPlans, isUnchanged, planText } from './plan-diff.ts';

const v1: Plan = {
  version: 'plan.v1',
  goal: 'Summarise the Q3 report',
  steps: [
    { id: 's1', title: 'Read the report', tools: ['read_file'] },
    { id: 's2', title: 'Write the summary', tools: ['write_file'] },
  ],
  allowed_tools: ['read_file', 'write_file'],
  acceptance: [{ id: 'a1', criterion: 'summary.md exists', check: { type: 'file_exists', path: 'summary.md' } }],
};

describe('diffPlans', () => {
  it('finds nothing between a plan and itself, whatever the key order', () => {
    const reordered = JSON.parse(JSON.stringify(v1)) as Plan;
    reordered.steps[0] = { tools: ['read_file'], title: 'Read the report', id: 's1' };
    expect(isUnchanged(diffPlans(v1, reordered))).toBe(true);
  });

  it('names added, removed and changed steps, tools and criteria by id', () => {
    const v2: Plan = {
      ...v1,
      goal: 'Summarise the Q3 report and chart it',
      steps: [
        { id: 's1', title: 'Read the report and the CSV', tools: ['read_file'] },
        { id: 's3', title: 'Chart revenue', tools: ['sandbox_exec'] },
      ],
      allowed_tools: ['read_file', 'sandbox_exec'],
      acceptance: [
        { id: 'a1', criterion: 'summary.md exists', check: { type: 'file_exists', path: 'summary.md' } },
        { id: 'a2', criterion: 'chart.png exists' },
      ],
    };
    expect(diffPlans(v1, v2)).toEqual({
      goal_changed: true,
      tools_added: ['sandbox_exec'],
      tools_removed: ['write_file'],
      steps_added: ['s3'],
      steps_removed: ['s2'],
      steps_changed: ['s1'],
      acceptance_added: ['a2'],
      acceptance_removed: [],
      acceptance_changed: [],
    });
    expect(isUnchanged(diffPlans(v1, v2))).toBe(false);
  });

  it('sees a changed check as a changed criterion', () => {
    const v2: Plan = { ...v1, acceptance: [{ id: 'a1', criterion: 'summary.md exists' }] };
    expect(diffPlans(v1, v2).acceptance_changed).toEqual(['a1']);
  });

  it('prints plans as two-space JSON', () => {
    expect(planText(v1).split('\n')[1]).toBe('  "version": "plan.v1",');
  });
});
