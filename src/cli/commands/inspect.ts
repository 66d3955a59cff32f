import { decide } from '../../task/approvals/decide.ts';
import { createFileBroker } from '../../task/approvals/file-broker.ts';
import { followJournal } from '../../task/journal/follow-journal.ts';
import { readJournal } from '../../task/journal/read-journal.ts';
import { checkTaskFolder, scaffoldTask, taskPaths } from '../../task/layout.ts';
import { lockHolder, lockOwner } from '../../task/lock.ts';
import { AgencyError } from '../../core/errors.ts';
import type { EventFrame } from '../../task/contracts/events.ts';
import { FINAL_STOP_REASONS, type StateFile, type StopReason } from '../../task/contracts/state.ts';
import { describeChanges } from '../../task/phases/plan-changes.ts';
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
  for await (const frame of followJournal(paths.events, { signal })) {
    print(frame);
    if (frame.type === 'finish') break;
  }
  return EXIT.ok;
}

/** `agency status <root> [--json]`: the state of a run. */
export async function statusCommand(root: string, options: { json?: boolean }, out: Output): Promise<number> {
  const paths = await checkTaskFolder(root);
  // The journal is read first: a corrupt line is reported here as `tail` and `resume` report it.
  const journal = await readJournal(paths.events).catch((error: unknown) => {
    if (!AgencyError.hasCode(error, 'path_not_found')) throw error;
    return undefined;
  });
  const frames = journal?.frames ?? [];
  let state: StateFile | undefined;
  try {
    state = await createFileStateStore(paths.progress).read();
  } catch (error) {
    // The journal is the run's record and state.json a checkpoint derived from it: with a journal, a damaged
    // checkpoint is reported, not fatal.
    if (frames.length === 0 || !AgencyError.hasCode(error, 'state_corrupt')) throw error;
    return journalStatus(frames, root, 'is unreadable', options, out);
  }
  if (!state && frames.length > 0) return journalStatus(frames, root, 'is missing', options, out);
  if (!state) {
    out.write(
      options.json ? '{"state":null}\n' : `${root}: not started. Run it with: agency run ${root} --model <spec>\n`,
    );
    return EXIT.ok;
  }
  const pending = await createFileBroker(paths.progress, { mode: 'file' }).pending();
  const owner = await lockOwner(paths.lock);
  const running = owner?.alive ? owner.pid : undefined;
  const liveness = livenessOf(state, owner, root);
  if (options.json) {
    out.write(
      `${JSON.stringify({ state, running_pid: running ?? null, interrupted: liveness.interrupted, resumable: liveness.resumable, pending_approvals: pending.map((request) => request.id) })}\n`,
    );
    return EXIT.ok;
  }
  const usage = state.usage;
  out.write(
    [
      `Task:      ${state.task_id} (${state.loop.name} v${state.loop.version})`,
      `Status:    ${liveness.line}`,
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
      ...(liveness.hint ? [`Next:      ${liveness.hint}`] : []),
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

// Status told from the journal alone, when state.json is missing or unreadable: the last finish frame, if any, says
// how the run ended; resume rebuilds state.json from the journal.
async function journalStatus(
  frames: readonly EventFrame[],
  root: string,
  why: string,
  options: { json?: boolean },
  out: Output,
): Promise<number> {
  const paths = taskPaths(root);
  const finish = frames.findLast((frame) => frame.type === 'finish');
  const reason = finish && typeof finish.data?.reason === 'string' ? (finish.data.reason as StopReason) : null;
  const resumed = frames.findLastIndex((frame) => frame.type === 'run.resumed');
  const finished = reason !== null && frames.lastIndexOf(finish!) > resumed;
  const owner = await lockOwner(paths.lock);
  const final = finished && FINAL_STOP_REASONS.includes(reason);
  const status = !finished ? (owner?.alive ? 'running' : 'interrupted') : `finished (${reason})`;
  const next = final ? undefined : owner?.alive && !finished ? undefined : `agency resume ${root}`;
  if (options.json) {
    out.write(
      `${JSON.stringify({ state: null, journal: { frames: frames.length, last_seq: frames.at(-1)?.seq ?? 0, finish_reason: finished ? reason : null }, running_pid: owner?.alive ? owner.pid : null, interrupted: !finished && !owner?.alive, resumable: next !== undefined })}\n`,
    );
    return EXIT.ok;
  }
  out.write(
    [
      `Task:      ${taskIdOf(frames)}`,
      `Status:    ${status}, told from the journal: ${paths.state} ${why}`,
      `Journal:   ${frames.length} frames, the last ${frames.at(-1)?.type} at ${frames.at(-1)?.ts}`,
      next ? `Next:      ${next} (rebuilds state.json from the journal)` : `Next:      nothing: the run is final`,
      '',
    ].join('\n'),
  );
  return EXIT.ok;
}

function taskIdOf(frames: readonly EventFrame[]): string {
  const spec = frames.find((frame) => frame.type === 'run.started')?.data?.spec;
  const id = typeof spec === 'object' && spec !== null ? (spec as { task_id?: unknown }).task_id : undefined;
  return typeof id === 'string' ? id : '?';
}

/** `agency approvals <root> [--json]`: pending approval requests. */
export async function approvalsCommand(root: string, options: { json?: boolean }, out: Output): Promise<number> {
  const paths = await checkTaskFolder(root);
  await readJournal(paths.events).catch((error: unknown) => {
    if (!AgencyError.hasCode(error, 'path_not_found')) throw error;
  });
  const pending = await createFileBroker(paths.progress, { mode: 'file' }).pending();
  if (options.json) {
    out.write(`${JSON.stringify(pending)}\n`);
    return EXIT.ok;
  }
  if (pending.length === 0) out.write('No pending approvals.\n');
  for (const request of pending) {
    const what =
      request.type === 'plan'
        ? `plan ${request.plan_path} (sig ${request.plan_sig.slice(0, 12)}…)` +
          (request.changes ? `\n  changes: ${describeChanges(request.changes)}` : '')
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
    `Wrote ${paths.stop}: ${running ? `the run (pid ${running}) stops within a second, in any state` : 'no run is active; the next run or resume stops at once'}.\n`,
  );
  return EXIT.ok;
}

type Liveness = { line: string; interrupted: boolean; resumable: boolean; hint?: string };

// What state.json says, corrected by the lock: a run whose process is gone is interrupted, not running.
function livenessOf(
  state: StateFile,
  owner: { pid: number; host: string; alive: boolean } | undefined,
  root: string,
): Liveness {
  const open = state.status === 'running' || state.status === 'waiting_approval';
  if (open && owner?.alive)
    return { line: `${state.status}, running as pid ${owner.pid}`, interrupted: false, resumable: false };
  if (open) {
    const gone = owner
      ? `its process (pid ${owner.pid}${owner.host ? ` on ${owner.host}` : ''}) is gone`
      : 'no process holds it';
    return {
      line: `interrupted: it was ${state.status} but ${gone}`,
      interrupted: true,
      resumable: true,
      hint: `agency resume ${root}`,
    };
  }
  const reason = state.finish_reason;
  const resumable = reason !== null && !FINAL_STOP_REASONS.includes(reason);
  return {
    line: `${state.status}${reason ? ` (${reason})` : ''}`,
    interrupted: false,
    resumable,
    hint: resumable
      ? `agency resume ${root}${reason?.startsWith('budget.') ? ' --max-… to raise the budget' : ''}`
      : 'nothing: the run is final (to do the task again, start a new run in a new folder)',
  };
}
