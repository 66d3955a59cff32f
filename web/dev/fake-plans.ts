// Canned plans, in pairs where a task re-planned, so the task page has versions to diff.
import type { Plan } from '../../src/task/contracts/plan.ts';

export const reportPlanV1: Plan = {
  version: 'plan.v1',
  goal: 'Summarise the Q3 revenue report for the board',
  steps: [
    { id: 'read-report', title: 'Read the Q3 report and the revenue CSV', tools: ['read_file', 'list_files'] },
    {
      id: 'draft-summary',
      title: 'Draft a one-page summary',
      description: 'Lead with revenue, margin and churn.',
      tools: ['write_file'],
    },
  ],
  allowed_tools: ['list_files', 'read_file', 'write_file'],
  acceptance: [
    {
      id: 'summary-exists',
      criterion: 'summary.md exists in the deliverables',
      check: { type: 'file_exists', path: 'progress/artifacts/summary.md' },
    },
    { id: 'numbers-match', criterion: 'Every figure in the summary matches the CSV' },
  ],
};

export const reportPlanV2: Plan = {
  ...reportPlanV1,
  steps: [
    {
      id: 'read-report',
      title: 'Read the Q3 report, the revenue CSV and last quarter’s summary',
      tools: ['read_file', 'list_files'],
    },
    {
      id: 'chart',
      title: 'Chart revenue by region',
      description: 'A PNG bar chart, computed in the sandbox.',
      tools: ['sandbox_exec'],
    },
    {
      id: 'draft-summary',
      title: 'Draft a one-page summary',
      description: 'Lead with revenue, margin and churn.',
      tools: ['write_file'],
    },
  ],
  allowed_tools: ['list_files', 'read_file', 'sandbox_exec', 'write_file'],
  acceptance: [
    ...reportPlanV1.acceptance,
    {
      id: 'chart-exists',
      criterion: 'chart.png shows revenue by region',
      check: { type: 'file_exists', path: 'progress/artifacts/chart.png' },
    },
  ],
};

export const billingPlanV1: Plan = {
  version: 'plan.v1',
  goal: "Refactor the billing module's retry logic",
  steps: [
    { id: 'map', title: 'Map every call site of retryCharge()', tools: ['grep', 'read_file'] },
    { id: 'extract', title: 'Extract a backoff policy object', tools: ['edit_file'] },
    { id: 'test', title: 'Run the billing test suite', tools: ['sandbox_exec'] },
  ],
  allowed_tools: ['edit_file', 'grep', 'read_file', 'sandbox_exec'],
  acceptance: [
    { id: 'tests-pass', criterion: 'npm test -- billing passes', check: { type: 'test_runner' } },
    { id: 'no-sleep', criterion: 'No bare setTimeout-based sleeps remain in billing/' },
  ],
};

export const billingPlanV2: Plan = {
  ...billingPlanV1,
  steps: [
    billingPlanV1.steps[0]!,
    {
      id: 'extract',
      title: 'Extract a backoff policy object with jitter',
      description: 'Full jitter, capped at 30 s.',
      tools: ['edit_file'],
    },
    billingPlanV1.steps[2]!,
    { id: 'docs', title: 'Document the policy in billing/README.md', tools: ['write_file'] },
  ],
  allowed_tools: ['edit_file', 'grep', 'read_file', 'sandbox_exec', 'write_file'],
};

export const ciPlan: Plan = {
  version: 'plan.v1',
  goal: 'Migrate CI to the new runners',
  steps: [
    { id: 'inventory', title: 'List the workflows that pin the old runner labels', tools: ['grep'] },
    { id: 'rewrite', title: 'Switch them to the new labels and cache keys', tools: ['edit_file'] },
    { id: 'dry-run', title: 'Dry-run the build locally', tools: ['sandbox_exec'] },
  ],
  allowed_tools: ['edit_file', 'grep', 'sandbox_exec'],
  acceptance: [{ id: 'green', criterion: 'The local dry run exits 0', check: { type: 'test_runner' } }],
};

/** A small plan for tasks made from the form: the goal is the brief's first line. */
export function briefPlan(goal: string): Plan {
  return {
    version: 'plan.v1',
    goal,
    steps: [
      { id: 'gather', title: 'Read the brief and the files under task/', tools: ['list_files', 'read_file'] },
      { id: 'write', title: 'Write the deliverable', tools: ['write_file'] },
    ],
    allowed_tools: ['list_files', 'read_file', 'write_file'],
    acceptance: [
      {
        id: 'delivered',
        criterion: 'result.md is delivered',
        check: { type: 'file_exists', path: 'progress/artifacts/result.md' },
      },
    ],
  };
}
