import { decide } from '../../task/approvals/decide.ts';
import { createFileBroker } from '../../task/approvals/file-broker.ts';
import { followJournal } from '../../task/journal/follow-journal.ts';
import { readJournal } from '../../task/journal/read-journal.ts';
import { checkTaskFolder, scaffoldTask } from '../../task/layout.ts';
import { lockHolder } from '../../task/lock.ts';
import { createFileStateStore } from '../../task/state-store.ts';
import { createTaskFiles } from '../../task/fs/task-files.ts';
import { EXIT } from '../exit-codes.ts';
import { formatFrame, type Output } from '../render.ts';

/** `agency init <root>`: scaffold a task folder. */
export async function initCommand(root: string, options: { brief?: string }, out: Output): Promise<number> {
  const paths = await scaffoldTask(root, options.brief ? { brief: `${options.brief.trim()}\n` } : {});
  out.write(
    `Created ${paths.brief}, ${paths.notes} and ${paths.todo}.\nEdit the brief, then: agency run ${root} --model <spec>\n`,
  );
  return EXIT.ok;
}

/** `agency tail <root> [-f] [--json]`: print the journal, and with -f keep following it. */
export async function tailCommand(
  root: string,
  options: { follow?: boolean; json?: boolean },
  out: Output,
  signal?: AbortSignal,
): Promise<number> {
  const paths = await checkTaskFolder(root);
  const print = (frame: Parameters<typeof formatFrame>[0]) =>
    out.write(options.json ? `${JSON.stringify(frame)}\n` : `${formatFrame(frame, out)}\n`);
  if (!options.follow) {
    const { frames, torn } = await readJournal(paths.events);
    for (const frame of frames) print(frame);
    if (torn && !options.json)
      out.write(`(the last line, ${torn.bytes} bytes, is torn: the run was interrupted while writing it)\n`);
    return EXIT.ok;
  }
  for await (const frame of followJournal(paths.events, { ...(signal ? { signal } : {}) })) {
    print(frame);
    if (frame.type === 'finish') break;
  }
  return EXIT.ok;
}

/** `agency status <root> [--json]`: the state of a run. */
export async function statusCommand(root: string, options: { json?: boolean }, out: Output): Promise<number> {
  const paths = await checkTaskFolder(root);
  const state = await createFileStateStore(paths.progress).read();
  if (!state) {
    out.write(
      options.json ? '{"state":null}\n' : `${root}: not started. Run it with: agency run ${root} --model <spec>\n`,
    );
    return EXIT.ok;
  }
  const pending = await createFileBroker(paths.progress, { mode: 'file' }).pending();
  const running = await lockHolder(paths.lock);
  if (options.json) {
    out.write(
      `${JSON.stringify({ state, running_pid: running ?? null, pending_approvals: pending.map((request) => request.id) })}\n`,
    );
    return EXIT.ok;
  }
  const usage = state.usage;
  out.write(
    [
      `Task:      ${state.task_id} (${state.loop.name} v${state.loop.version})`,
      `Status:    ${state.status}${state.finish_reason ? ` (${state.finish_reason})` : ''}${running ? `, running as pid ${running}` : ''}`,
      `Phase:     ${state.phase}, last step ${state.last_step_id ?? '-'}, ${state.steps_done} step(s) done`,
      `Plan:      ${state.plan_sig ? `${state.plan_sig.slice(0, 16)}…` : '-'}${state.approved_plan_sig ? (state.approved_plan_sig === state.plan_sig ? ' (approved)' : ' (an earlier version was approved)') : ''}`,
      `Usage:     ${usage.total_tokens} tokens${usage.cost_usd === null ? '' : `, $${usage.cost_usd.toFixed(6)}`}`,
      `Remaining: ${
        Object.entries(state.budgets.remaining)
          .filter(([, value]) => value !== null)
          .map(([key, value]) => `${key} ${value}`)
          .join(', ') || 'no limits'
      }`,
      ...pending.map((request) => `Pending:   ${request.id} (${request.type}) → agency approve ${root} ${request.id}`),
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

/** `agency approvals <root> [--json]`: pending approval requests. */
export async function approvalsCommand(root: string, options: { json?: boolean }, out: Output): Promise<number> {
  const paths = await checkTaskFolder(root);
  const pending = await createFileBroker(paths.progress, { mode: 'file' }).pending();
  if (options.json) {
    out.write(`${JSON.stringify(pending)}\n`);
    return EXIT.ok;
  }
  if (pending.length === 0) out.write('No pending approvals.\n');
  for (const request of pending) {
    const what =
      request.type === 'plan'
        ? `plan ${request.plan_path} (sig ${request.plan_sig.slice(0, 12)}…)`
        : `${request.tool_name} ${JSON.stringify(request.tool_args)}`;
    out.write(
      `${request.id}  ${request.type}  ${what}\n  ${request.rationale}\n  expires ${request.expires_at}\n  → agency approve ${root} ${request.id}   |   agency deny ${root} ${request.id}\n`,
    );
  }
  return EXIT.ok;
}

/** `agency approve|deny <root> <id>`: write a decision file for a pending request. */
export async function decideCommand(
  root: string,
  id: string,
  decision: 'approved' | 'denied',
  options: { by?: string; reason?: string },
  out: Output,
): Promise<number> {
  const paths = await checkTaskFolder(root);
  const by = options.by ?? process.env.USER ?? 'cli';
  await decide(paths.progress, id, decision, { by, ...(options.reason ? { reason: options.reason } : {}) });
  out.write(`${id}: ${decision} by ${by}\n`);
  return EXIT.ok;
}

/** `agency stop <root>`: ask the run to stop at its next boundary (writes progress/STOP). */
export async function stopCommand(root: string, out: Output): Promise<number> {
  const paths = await checkTaskFolder(root);
  await createTaskFiles(paths.root).write(paths.stop, `stop requested at ${new Date().toISOString()}\n`);
  const running = await lockHolder(paths.lock);
  out.write(
    `Wrote ${paths.stop}: ${running ? `the run (pid ${running}) stops at its next step boundary` : 'no run is active; the next run or resume stops at once'}.\n`,
  );
  return EXIT.ok;
}
