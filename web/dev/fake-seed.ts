// The canned tasks the fake server starts with: one of every status, a re-planned task, stuck ones, and enough
// finished ones to fill more than a page.
import { billingPlanV1, billingPlanV2, ciPlan, reportPlanV1, reportPlanV2 } from './fake-plans.ts';
import { createTask, runSeeded } from './fake-runner.ts';
import {
  act,
  askPlanApproval,
  askToolApproval,
  finish,
  finishTask,
  phase,
  proposePlan,
  toolCall,
  verify,
} from './fake-scripts.ts';
import { emit } from './fake-store.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const MODELS = ['anthropic:claude-sonnet-4-5', 'openai:gpt-4.1-mini', 'openai:gpt-4.1'];

const REPORT_CHANGES = {
  origin: 'revised after the reviewer asked for a chart',
  goal_changed: false,
  tools_added: ['sandbox_exec'],
  tools_removed: [],
  steps_added: ['chart'],
  steps_removed: [],
  steps_changed: ['read-report'],
  acceptance_added: ['chart-exists'],
  acceptance_removed: [],
  acceptance_changed: [],
};

const BILLING_CHANGES = {
  origin: 'edited by hand after approval',
  goal_changed: false,
  tools_added: ['write_file'],
  tools_removed: [],
  steps_added: ['docs'],
  steps_removed: [],
  steps_changed: ['extract'],
  acceptance_added: [],
  acceptance_removed: [],
  acceptance_changed: [],
};

/** Fills the store. The first task runs for ever, so its page always has a live stream. */
export function seed(now = Date.now()): void {
  finishedTasks(now);

  const interrupted = createTask({
    goal: 'Translate the onboarding guide into German',
    brief: '# Translate the onboarding guide into German\n\nKeep product names in English.',
    model: MODELS[0]!,
    createdAt: now - 5 * HOUR,
  });
  interrupted.script = [
    ...phase('gather', 'files', (step) => toolCall(step, 'read_file')),
    ...act(['read_file', 'write_file']),
  ];
  runSeeded(interrupted);
  interrupted.detail.status = 'interrupted';
  interrupted.detail.stuck = 'interrupted';

  const overBudget = createTask({
    goal: 'Audit dependency licences across the monorepo',
    brief: '# Audit dependency licences across the monorepo\n\nFlag anything GPL or unknown.',
    model: MODELS[2]!,
    createdAt: now - 3 * HOUR,
    limits: { max_total_tokens: 60_000 },
  });
  overBudget.script = [
    ...phase('gather', 'files', (step) => toolCall(step, 'list_files')),
    ...proposePlan(ciPlan, 'proposed by the model'),
    ...act([
      'grep',
      'read_file',
      'read_file',
      'grep',
      'read_file',
      'read_file',
      'read_file',
      'read_file',
      'read_file',
      'read_file',
      'read_file',
      'read_file',
      'read_file',
    ]),
  ];
  runSeeded(overBudget);
  overBudget.detail.plans[0]!.approved = true;
  emit(overBudget, {
    type: 'budget.hit',
    message: 'Token budget exhausted',
    data: { reason: 'budget.tokens' },
    budgets_remaining: overBudget.detail.budgets!.remaining,
  });
  finishTask(overBudget, 'budget.tokens');
  emit(overBudget, { type: 'finish', message: 'Run finished: budget.tokens', data: { reason: 'budget.tokens' } });

  const expired = createTask({
    goal: 'Rotate the staging database credentials',
    brief: '# Rotate the staging database credentials',
    model: MODELS[1]!,
    createdAt: now - 2 * DAY,
  });
  expired.script = [
    ...phase('gather', 'files', (step) => toolCall(step, 'read_file')),
    ...proposePlan(ciPlan, 'proposed by the model'),
    ...askPlanApproval(ciPlan, 'Plan v1 for: Rotate the staging database credentials', undefined, HOUR),
  ];
  runSeeded(expired);

  const ci = createTask({
    goal: 'Migrate CI to the new runners',
    brief: '# Migrate CI to the new runners\n\nThe old `ubuntu-20.04` labels go away on Friday.',
    model: MODELS[0]!,
    createdAt: now - 50 * MINUTE,
  });
  ci.script = [
    ...phase('gather', 'files', (step) => toolCall(step, 'grep')),
    ...proposePlan(ciPlan, 'proposed by the model'),
    ...act(['grep', 'edit_file']),
    ...askToolApproval(
      'sandbox_exec',
      {
        cmd: 'rm -rf build && npm ci && npm run build',
        cwd: 'workspace/',
        timeout_ms: 600_000,
        env: { CI: 'true', NPM_TOKEN: '[redacted]' },
      },
      'sandbox_exec writes outside task/ and is gated by the policy "exec needs a person".',
    ),
  ];
  runSeeded(ci);
  ci.detail.plans[0]!.approved = true;

  const billing = createTask({
    goal: "Refactor the billing module's retry logic",
    brief: "# Refactor the billing module's retry logic\n\nReplace the ad-hoc sleeps with one backoff policy.",
    model: MODELS[0]!,
    createdAt: now - 35 * MINUTE,
  });
  billing.script = [
    ...phase('gather', 'files', (step) => [...toolCall(step, 'grep'), ...toolCall(step, 'read_file')]),
    ...proposePlan(billingPlanV1, 'proposed by the model'),
    ...askPlanApproval(billingPlanV1, 'Plan v1 for: Refactor the billing module'),
  ];
  runSeeded(billing);
  // v1 was asked, then the plan was edited by hand: the first request is stale, the second asks for v2.
  billing.stale.add(billing.detail.approvals[0]!.request.id);
  billing.waitingFor = undefined;
  billing.script = [
    ...proposePlan(billingPlanV2, BILLING_CHANGES.origin, BILLING_CHANGES),
    ...askPlanApproval(
      billingPlanV2,
      'Plan v2 for: Refactor the billing module (edited after approval)',
      BILLING_CHANGES,
    ),
    ...act(['edit_file', 'sandbox_exec']),
    ...verify(billingPlanV2, true),
    ...finish(
      'completed',
      { 'progress/artifacts/billing-retry.md': '# Backoff policy\n\nFull jitter, capped at 30 s.\n' },
      'Extracted BackoffPolicy; 14 call sites now use it.',
    ),
  ];
  while (billing.script.length > 0 && billing.waitingFor === undefined) {
    const step = billing.script.shift()!;
    step.effect?.(billing);
    if (step.frame) emit(billing, typeof step.frame === 'function' ? step.frame(billing) : step.frame);
  }

  const queued = createTask({
    goal: 'Draft release notes for 2.8',
    brief: '# Draft release notes for 2.8',
    model: MODELS[1]!,
    createdAt: now - 20_000,
  });
  queued.detail.status = 'created';

  const live = createTask({
    goal: 'Summarise the Q3 revenue report for the board',
    brief:
      '# Summarise the Q3 revenue report for the board\n\nUse task/q3-report.md and task/revenue.csv. One page, lead with revenue, margin and churn. Add a chart by region.',
    model: MODELS[0]!,
    createdAt: now - 12 * MINUTE,
    limits: { max_total_tokens: 2_000_000, max_iterations: 600, max_wall_clock_ms: 4 * HOUR, max_cost_usd: 25 },
  });
  live.detail.files = ['task/q3-report.md', 'task/revenue.csv'];
  live.script = [
    ...phase('gather', 'files', (step) => [...toolCall(step, 'list_files'), ...toolCall(step, 'read_file')]),
    ...proposePlan(reportPlanV1, 'proposed by the model'),
    ...askPlanApproval(reportPlanV1, 'Plan v1 for: Summarise the Q3 revenue report'),
  ];
  runSeeded(live, 6_000);
  const [first] = live.detail.approvals;
  first!.decision = {
    id: first!.request.id,
    decision: 'approved',
    approved_by: 'alice@example.com',
    timestamp: new Date(now - 9 * MINUTE).toISOString(),
    plan_sig: (first!.request as { plan_sig: string }).plan_sig,
    reason: 'Looks right.',
  };
  first!.state = 'decided';
  live.detail.plans[0]!.approved = true;
  live.waitingFor = undefined;
  live.script = [
    ...proposePlan(reportPlanV2, REPORT_CHANGES.origin, REPORT_CHANGES),
    ...act(['read_file', 'read_file']),
  ];
  runSeeded(live, 8_000);
  live.detail.plans[1]!.approved = true;
  live.detail.status = 'running';
  live.detail.stuck = null;
  live.endless = true;
}

function finishedTasks(now: number): void {
  const goals = [
    'Write the Q2 churn analysis',
    'Summarise customer interviews from March',
    'Find flaky tests in the payments suite',
    'Draft the security review for the new SSO flow',
    'Update the API reference for v2 endpoints',
    'Benchmark the search index rebuild',
    'Classify 400 support tickets by product area',
    'Check the pricing page for stale numbers',
    'Prepare the incident timeline for INC-2291',
    'Compare three vector stores for the docs search',
  ];
  for (let i = 0; i < 26; i++) {
    const goal = goals[i % goals.length]! + (i >= goals.length ? ` (${Math.floor(i / goals.length) + 1})` : '');
    const task = createTask({
      goal,
      brief: `# ${goal}\n\nDeliver a short Markdown report.`,
      model: MODELS[i % MODELS.length]!,
      createdAt: now - (i + 1) * 7 * HOUR,
    });
    const failed = i === 2 || i === 11;
    const plan = { ...reportPlanV1, goal };
    task.script = [
      ...phase('gather', 'files', (step) => [...toolCall(step, 'list_files'), ...toolCall(step, 'read_file')]),
      ...proposePlan(plan, 'proposed by the model'),
      ...act(['read_file', 'write_file']),
      ...verify(plan, !failed),
      ...finish(
        failed ? 'verify.failed' : 'completed',
        failed
          ? {}
          : {
              'progress/artifacts/brief.md': `# ${goal}\n\nThe brief, as given.\n`,
              'progress/artifacts/summary.md': `# ${goal}\n\n- Finding one\n- Finding two\n`,
            },
        failed ? '' : `Delivered summary.md for “${goal}”.`,
      ),
    ];
    runSeeded(task);
    task.detail.plans[0]!.approved = true;
  }
}
