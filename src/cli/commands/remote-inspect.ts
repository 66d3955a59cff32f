import type { InboxItem, TaskDetail } from '../../client/index.ts';
import { FINAL_STOP_REASONS } from '../../task/contracts/state.ts';
import { describeChanges } from '../../task/phases/plan-changes.ts';
import { EXIT } from '../exit-codes.ts';
import { formatFrame, type Output } from '../render.ts';
import { connect, type Remote, taskIdArgument } from '../remote/connect.ts';
import type { ServerFlags } from './register-server-options.ts';

// The same commands as inspect.ts, on a task of a server: `<root>` is its task id, and what a local command reads
// from the task folder comes from the API.

/** `agency status <task id> --server URL [--json]`: the fields `agency status` prints, from the server. */
export async function remoteStatusCommand(root: string, options: ServerFlags & { json?: boolean }, out: Output) {
  const remote = connect(options);
  const id = taskIdArgument(root);
  const task = await remote.client.tasks.get(id);
  if (options.json) {
    out.write(`${JSON.stringify(task)}\n`);
    return EXIT.ok;
  }
  const plan = task.plans.at(-1);
  const approved = task.plans.some((version) => version.approved);
  const pending = task.approvals.filter((entry) => entry.state === 'pending');
  const remaining = Object.entries(task.budgets?.remaining ?? {}).filter(([, value]) => value !== null);
  const next = nextStep(task, remote);
  out.write(
    [
      `Task:      ${task.id} on ${remote.url} (model ${task.model ?? '-'})`,
      `Status:    ${statusLine(task)}`,
      `Phase:     ${task.phase ?? '-'}, ${task.last_seq} events`,
      `Plan:      ${plan ? `${plan.signature.slice(0, 16)}… v${plan.version}` : '-'}${plan?.approved ? ' (approved)' : approved ? ' (an earlier version was approved)' : ''}`,
      `Usage:     ${task.usage?.total_tokens ?? 0} tokens${task.usage?.cost_usd == null ? '' : `, $${task.usage.cost_usd.toFixed(6)}`}`,
      `Remaining: ${remaining.map(([key, value]) => `${key} ${value}`).join(', ') || 'no limits'}`,
      ...pending.map(
        ({ request }) => `Pending:   ${request.id} (${request.type}) → ${remote.command('approve', id, request.id)}`,
      ),
      ...(next ? [`Next:      ${next}`] : []),
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

function statusLine(task: TaskDetail): string {
  if (task.status === 'interrupted') return 'interrupted: its run was in flight when the server stopped';
  const reason = task.finish_reason && task.status !== 'running' ? ` (${task.finish_reason})` : '';
  return `${task.status}${reason}${task.stuck && task.stuck !== task.status ? `, stuck: ${task.stuck}` : ''}`;
}

function nextStep(task: TaskDetail, remote: Remote): string | undefined {
  if (task.status === 'created') return 'upload its files, then start it (POST /agent/tasks/{id}/start)';
  if (['queued', 'running', 'waiting_approval'].includes(task.status)) return undefined;
  const reason = task.finish_reason;
  if (reason !== null && FINAL_STOP_REASONS.includes(reason))
    return 'nothing: the run is final (to do the task again, start a new one)';
  return `${remote.command('resume', task.id)}${reason?.startsWith('budget.') ? ' --max-… to raise the budget' : ''}`;
}

/** `agency tail <task id> --server URL [-f] [--json]`: the journal so far, or followed to the run's end. */
export async function remoteTailCommand(
  root: string,
  options: ServerFlags & { follow?: boolean; json?: boolean },
  out: Output,
  err: Output,
) {
  const remote = connect(options);
  const id = taskIdArgument(root);
  // Without -f, up to the last frame there is now.
  const until = options.follow ? Infinity : (await remote.client.tasks.get(id)).last_seq;
  if (until === 0) return EXIT.ok;
  const events = remote.client.tasks.events(id, {
    onReconnect: ({ error, delayMs }) =>
      err.write(`agency: lost ${remote.url} (${error.message}); reconnecting in ${delayMs} ms\n`),
  });
  for await (const frame of events) {
    out.write(options.json ? `${JSON.stringify(frame)}\n` : `${formatFrame(frame, out)}\n`);
    if (frame.seq >= until) break;
  }
  return EXIT.ok;
}

/** `agency approvals [<task id>] --server URL [--json]`: the server's pending requests, for one task or all. */
export async function remoteApprovalsCommand(
  root: string | undefined,
  options: ServerFlags & { json?: boolean },
  out: Output,
) {
  const remote = connect(options);
  const id = root === undefined ? undefined : taskIdArgument(root);
  const { items } = await remote.client.approvals.list();
  const mine = items.filter((item) => id === undefined || item.task_id === id);
  if (options.json) {
    out.write(`${JSON.stringify(mine)}\n`);
    return EXIT.ok;
  }
  if (mine.length === 0) out.write('No pending approvals.\n');
  for (const item of mine) out.write(describeItem(item, remote));
  return EXIT.ok;
}

function describeItem({ task_id: task, request, state, goal }: InboxItem, remote: Remote): string {
  const what =
    request.type === 'plan'
      ? `plan ${request.plan_path} (sig ${request.plan_sig.slice(0, 12)}…)` +
        (request.changes ? `\n  changes: ${describeChanges(request.changes)}` : '')
      : `${request.tool_name} ${JSON.stringify(request.tool_args)}`;
  const decide =
    state === 'pending'
      ? `→ ${remote.command('approve', task, request.id)}   |   ${remote.command('deny', task, request.id)}`
      : `(${state}: ${state === 'stale' ? 'the plan changed since; a decision would be refused' : 'too late to decide'})`;
  return `${request.id}  ${request.type}  ${what}\n  task ${task}: ${goal}\n  ${request.rationale}\n  expires ${request.expires_at}\n  ${decide}\n`;
}

/** `agency approve|deny <task id> <request id> --server URL`: the decision, signed by the server with the token's name. */
export async function remoteDecideCommand(
  root: string,
  requestId: string,
  decision: 'approved' | 'denied',
  options: ServerFlags & { by?: string; reason?: string },
  out: Output,
) {
  const remote = connect(options, {
    by: "with --server, the server signs the decision with the name of the token's holder",
  });
  const id = taskIdArgument(root);
  const decided = await remote.client.approvals.decide(requestId, {
    decision,
    task_id: id,
    ...(options.reason ? { reason: options.reason } : {}),
  });
  out.write(`${requestId}: ${decided.decision} by ${decided.approved_by}\n`);
  return EXIT.ok;
}

/** `agency stop <task id> --server URL`: the server stops the run within a second, or takes it out of its queue. */
export async function remoteStopCommand(root: string, options: ServerFlags, out: Output) {
  const remote = connect(options);
  const id = taskIdArgument(root);
  const answer = await remote.client.tasks.stop(id);
  out.write(`${id}: ${answer.message}\n`);
  return EXIT.ok;
}
