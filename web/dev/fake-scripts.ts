// Script builders: the frames a governed run journals, phase by phase, with what each does to the task.
import type { PlanChanges } from '../../src/task/contracts/approvals.ts';
import type { Plan } from '../../src/task/contracts/plan.ts';
import type { StopReason } from '../../src/task/contracts/state.ts';
import { digest, ulid } from './fake-ids.ts';
import { remainingAfter, type FakeTask, type Step } from './fake-store.ts';

const TOOL_ARGS: Record<string, unknown> = {
  list_files: { path: 'task/' },
  read_file: { path: 'task/q3-report.md' },
  write_file: { path: 'progress/artifacts/summary.md', bytes: 2_184 },
  grep: { pattern: 'retryCharge\\(', path: 'src/billing' },
  edit_file: { path: 'src/billing/retry.ts', edits: 3 },
  sandbox_exec: { cmd: 'python3 chart.py --by region', timeout_ms: 60_000 },
};

let stepCounter = 0;

function stepId(name: string): string {
  stepCounter += 1;
  return `${String(stepCounter).padStart(4, '0')}-${name}`;
}

/** A phase: its start, the steps inside, its finish. */
export function phase(name: string, kind: string, inner: (step: string) => Step[]): Step[] {
  const step = stepId(name);
  return [
    {
      frame: {
        type: 'phase.start',
        step,
        step_kind: kind,
        message: `${name} started`,
        data: { phase: name, elapsed_ms: 0 },
      },
    },
    ...inner(step),
    {
      frame: {
        type: 'phase.finish',
        step,
        step_kind: kind,
        message: `${name} finished`,
        data: { phase: name, output_ref: `progress/steps/${step}/output.json` },
      },
    },
  ];
}

/** One model call's usage, spending tokens, cost and an iteration. */
export function usage(step: string, tokens: number): Step {
  const output = Math.round(tokens * 0.18);
  const cost = Math.round((tokens - output) * 3 + output * 15) / 1e6;
  return {
    frame: (task) => ({
      type: 'usage.delta',
      step,
      message: `${tokens} tokens`,
      data: { tool_calls: 1, finish_reason: 'tool-calls' },
      usage_delta: {
        input_tokens: tokens - output,
        output_tokens: output,
        total_tokens: tokens,
        reasoning_tokens: 0,
        cached_input_tokens: Math.round(tokens * 0.4),
        cost_usd: cost,
      },
      budgets_remaining: remainingAfter(task, tokens, cost),
    }),
  };
}

/** A tool call and its result. */
export function toolCall(step: string, tool: string, ok = true): Step[] {
  const args = TOOL_ARGS[tool] ?? {};
  const id = digest([tool, args, step]);
  return [
    {
      frame: {
        type: 'tool.call',
        step,
        message: tool,
        data: {
          tool_call_id: id,
          tool,
          args,
          args_digest: id,
          effects:
            tool.includes('write') || tool.includes('edit') ? 'write' : tool === 'sandbox_exec' ? 'exec' : 'read',
          idempotent: !tool.includes('exec'),
        },
      },
    },
    {
      frame: {
        type: 'tool.result',
        step,
        message: `${tool} ${ok ? 'ok' : 'failed'}`,
        data: { tool_call_id: id, tool, ok, duration_ms: 40 + Math.round(Math.random() * 900) },
        ...(ok ? {} : { error: { code: 'tool_failed', message: `${tool} exited with status 1` } }),
      },
    },
  ];
}

/** A plan version: journaled, added to the task's versions. */
export function proposePlan(plan: Plan, origin: string, changes?: PlanChanges): Step[] {
  return phase('plan', 'agent', (step) => [
    usage(step, 3_200),
    {
      frame: {
        type: 'plan.proposed',
        step,
        message: `Plan (${plan.steps.length} steps, tools: ${plan.allowed_tools.join(', ')}) ${origin}`,
        data: {
          plan_sig: digest(plan),
          allowed_tools: plan.allowed_tools,
          origin,
          ...(changes ? { changes } : {}),
          plan,
        },
      },
      effect: (task) => {
        const version = task.detail.plans.length + 1;
        task.detail.plans.push({
          version,
          signature: digest(plan),
          plan,
          origin,
          changes: changes ?? null,
          approved: false,
        });
      },
    },
  ]);
}

/** A plan approval request; the script pauses on it until it is decided. */
export function askPlanApproval(
  plan: Plan,
  rationale: string,
  changes?: PlanChanges,
  expiresInMs = 86_400_000,
): Step[] {
  const step = stepId('approve-plan');
  const id = `req_${ulid()}`;
  return [
    {
      frame: {
        type: 'phase.start',
        step,
        step_kind: 'approval',
        message: 'approval started',
        data: { phase: 'approval' },
      },
    },
    {
      effect: (task) => {
        const now = task.clock ? task.clock() : Date.now();
        const request = {
          id,
          type: 'plan' as const,
          task_id: task.detail.id,
          plan_path: 'progress/plan/current.json',
          plan_sig: digest(plan),
          rationale,
          ...(changes ? { changes } : {}),
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + expiresInMs).toISOString(),
        };
        task.detail.approvals.push({ request, decision: null, state: 'pending' });
        task.detail.status = 'waiting_approval';
        task.detail.stuck = 'waiting_approval';
        task.waitingFor = id;
      },
      frame: {
        type: 'approval.requested',
        step,
        message: `Plan approval requested (${id})`,
        data: { id, type: 'plan', plan_sig: digest(plan), rationale },
      },
      pause: true,
    },
  ];
}

/** A tool approval request; the script pauses on it. */
export function askToolApproval(tool: string, args: unknown, rationale: string, expiresInMs = 3_600_000): Step[] {
  const step = stepId('act');
  const id = `req_${ulid()}`;
  const argsDigest = digest(args);
  return [
    {
      effect: (task) => {
        const now = task.clock ? task.clock() : Date.now();
        const current = task.detail.plans[task.detail.plans.length - 1];
        const request = {
          id,
          type: 'tool' as const,
          task_id: task.detail.id,
          tool_name: tool,
          tool_args: args,
          args_digest: argsDigest,
          tool_call_id: argsDigest,
          rationale,
          plan_sig: current?.signature ?? null,
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + expiresInMs).toISOString(),
        };
        task.detail.approvals.push({ request, decision: null, state: 'pending' });
        task.detail.status = 'waiting_approval';
        task.detail.stuck = 'waiting_approval';
        task.waitingFor = id;
      },
      frame: {
        type: 'approval.requested',
        step,
        message: `Approval requested for ${tool} (${id})`,
        data: { id, type: 'tool', tool, args_digest: argsDigest, rationale },
      },
      pause: true,
    },
  ];
}

/** The act phase: a run of tool calls, each after a model call. */
export function act(tools: readonly string[]): Step[] {
  return phase('act', 'agent', (step) =>
    tools.flatMap((tool) => [usage(step, 1_800 + Math.round(Math.random() * 2_400)), ...toolCall(step, tool)]),
  );
}

/** The verify phase and its report. */
export function verify(plan: Plan, passed: boolean): Step[] {
  return phase('verify', 'verify', (step) => [
    usage(step, 2_600),
    {
      frame: {
        type: passed ? 'verify.pass' : 'verify.fail',
        step,
        message: passed
          ? 'All acceptance criteria met'
          : `${plan.acceptance.length - 1} of ${plan.acceptance.length} criteria met`,
        data: { passed: passed ? plan.acceptance.length : plan.acceptance.length - 1, total: plan.acceptance.length },
      },
      effect: (task) => {
        const attempt = task.detail.verify.length + 1;
        task.detail.verify.push({
          version: 'verify.v1',
          task_id: task.detail.id,
          attempt,
          plan_sig: digest(plan),
          passed,
          criteria: plan.acceptance.map((criterion, index) => {
            const ok = passed || index < plan.acceptance.length - 1;
            return {
              id: criterion.id,
              criterion: criterion.criterion,
              passed: ok,
              methods: criterion.check ? [criterion.check.type, 'model'] : ['model'],
              evidence: ok
                ? 'Checked against the files the run delivered.'
                : 'The regional totals differ from the CSV by 3.1%.',
              artifacts: ok && criterion.check && 'path' in criterion.check ? [criterion.check.path] : [],
            };
          }),
          created_at: new Date(task.clock ? task.clock() : Date.now()).toISOString(),
        });
      },
    },
  ]);
}

/** The end of a run: its deliverables, its result, its status. */
export function finish(reason: StopReason, deliverables: Record<string, string> = {}, output = ''): Step[] {
  return [
    {
      effect: (task) => {
        for (const [path, content] of Object.entries(deliverables)) {
          task.files.set(path, content);
          const name = path.split('/').pop() ?? path;
          task.detail.deliverables.push({
            path,
            kind: name.endsWith('.png') ? 'image' : 'document',
            title: name,
            mime: name.endsWith('.png') ? 'image/png' : 'text/markdown',
            size: content.length,
            sha256: digest(content),
          });
        }
      },
    },
    {
      frame: {
        type: 'finish',
        message: `Run finished: ${reason}`,
        data: { reason, deliverables: Object.keys(deliverables), verified: reason === 'completed', output },
      },
      effect: (task) => finishTask(task, reason, output),
    },
  ];
}

/** Marks a task finished and records its result. */
export function finishTask(task: FakeTask, reason: StopReason, output = ''): void {
  const { detail } = task;
  detail.status =
    reason === 'completed'
      ? 'completed'
      : reason === 'stopped' || reason === 'cancelled' || reason.startsWith('budget.')
        ? 'stopped'
        : 'failed';
  detail.finish_reason = reason;
  detail.stuck = reason.startsWith('budget.') ? 'over_budget' : null;
  detail.phase = 'done';
  const now = new Date(task.clock ? task.clock() : Date.now()).toISOString();
  task.result = {
    task_id: detail.id,
    loop_name: 'gather-plan-act-verify',
    loop_version: '1',
    loop_signature: digest('gather-plan-act-verify'),
    progress_dir: `${detail.id}/progress`,
    finish_reason: reason,
    usage: detail.usage ?? {
      input_tokens: 0,
      output_tokens: 0,
      total_tokens: 0,
      reasoning_tokens: 0,
      cached_input_tokens: 0,
      cost_usd: 0,
    },
    output_text: output,
    verified: reason === 'completed',
    plan_sig: detail.plans[detail.plans.length - 1]?.signature ?? null,
    ...(reason === 'completed'
      ? {}
      : {
          error: {
            code: reason,
            message:
              reason === 'verify.failed'
                ? 'Verification failed: the regional totals differ from the CSV.'
                : `The run stopped: ${reason}.`,
          },
        }),
    started_at: detail.created_at,
    completed_at: now,
  };
}
