import { labelSchema, MAX_LABELS } from '../../config/labels.ts';
import { AgencyError } from '../../core/errors.ts';
import { createCliDirector, type Dispatch } from '../../fleet/directors/cli/cli-director.ts';
import type { WorkerTask } from '../../fleet/api/worker-schemas.ts';
import { fleetSettingsFrom } from '../../fleet/queue/settings.ts';
import { EXIT, exitCodeForTask } from '../exit-codes.ts';
import { createTaskProgressView } from '../fleet-view.ts';
import { type Output, paint } from '../render.ts';
import { stopOnSignals } from '../signals.ts';
import { type FleetFlags, fleetSettings } from './fleet-options.ts';

/** Options of `agency task`. */
export type TaskCommandOptions = FleetFlags & {
  agent?: string;
  session?: string;
  continue?: boolean;
  end?: boolean;
  model?: string;
  timeout?: number;
  /** Seconds, or `true` for the default wait. */
  wait?: number | true;
  /** Labels the worker must have (fleet mode). */
  label?: string[];
  json?: boolean;
};

/** How long `--wait` without a number waits for a free worker. */
export const DEFAULT_WAIT_SECONDS = 300;

/**
 * `agency task "prompt"`: the CLI director. Sends the prompt to an idle worker (or the one `--agent` names, or the
 * session's), shows its progress on stderr, prints its output on stdout, and exits with a code for how it ended.
 */
export async function taskCommand(
  prompt: string | undefined,
  options: TaskCommandOptions,
  out: Output,
  err: Output,
): Promise<number> {
  checkUsage(prompt, options);
  const { ports, urls, root, token } = fleetSettings(options);
  const fleet = fleetSettingsFrom();
  if (fleet) {
    const { queueTaskCommand } = await import('./task-queue.ts');
    return queueTaskCommand(prompt, options, { fleet, root }, out, err);
  }
  if (options.label?.length)
    throw new AgencyError(
      'invalid_argument',
      '--label needs fleet mode (AGENCY_DATABASE_URL set): on one machine, pick the worker with --agent instead.',
    );
  const director = createCliDirector({
    discovery: { ports, urls },
    agencyRoot: root,
    ...(token ? { token } : {}),
  });
  const session = options.session ?? (options.continue || options.end ? 'last' : undefined);
  if (options.end) return endSession(director, session ?? 'last', options, out, err);

  const giveUp = new AbortController();
  const stopWaiting = stopOnSignals(err, '\nNo longer waiting for a worker.\n', () => giveUp.abort());
  let dispatch: Dispatch;
  let waits = 0;
  try {
    dispatch = await director.send({
      prompt: prompt ?? '',
      model: options.model,
      timeoutSeconds: options.timeout,
      agent: options.agent,
      session,
      waitMs: options.wait === undefined ? 0 : (options.wait === true ? DEFAULT_WAIT_SECONDS : options.wait) * 1000,
      signal: giveUp.signal,
      onWait: ({ delayMs, busy }) => {
        const again = `asking again in ${(delayMs / 1000).toFixed(1)} s`;
        err.write(
          paint(
            err,
            'yellow',
            `${waits++ === 0 ? `Every worker is busy (${busy.join('; ')})` : 'Still busy'}; ${again}\n`,
          ),
        );
      },
    });
  } catch (error) {
    if (giveUp.signal.aborted && AgencyError.hasCode(error, 'aborted')) return EXIT.stopped;
    throw error;
  } finally {
    stopWaiting();
  }

  const view = createTaskProgressView(err, dispatch);
  const stopTask = stopOnSignals(
    err,
    '\nCancelling the task on the worker (press Ctrl-C again to leave it running)…\n',
    () => void director.cancel(dispatch).catch((error: unknown) => err.write(`agency: ${(error as Error).message}\n`)),
  );
  let task: WorkerTask;
  try {
    task = await director.follow(dispatch, view.update);
  } finally {
    stopTask();
    view.close();
  }
  view.finish(task);
  if (options.json)
    out.write(`${JSON.stringify({ worker: { url: dispatch.url, name: dispatch.name ?? null }, task })}\n`);
  else if (task.output) out.write(task.output.endsWith('\n') ? task.output : `${task.output}\n`);
  return exitCodeForTask(task);
}

async function endSession(
  director: ReturnType<typeof createCliDirector>,
  session: string,
  options: TaskCommandOptions,
  out: Output,
  err: Output,
): Promise<number> {
  const { location, answer } = await director.end(session);
  const where = `${location.taskId} on ${location.url}`;
  if (options.json) {
    out.write(
      `${JSON.stringify({ task_id: location.taskId, url: location.url, state: answer?.state ?? location.state, ended: answer !== undefined })}\n`,
    );
  } else if (answer) {
    err.write(`${paint(err, 'green', '✓ session ended')} (${where}, ${answer.state})\n`);
  } else {
    err.write(`The session had already ended (${where}, ${location.state}).\n`);
  }
  return EXIT.ok;
}

function checkUsage(prompt: string | undefined, options: TaskCommandOptions): void {
  const usage = (message: string) => new AgencyError('invalid_argument', message);
  if (options.end && prompt !== undefined) throw usage('--end takes no prompt: it ends the session.');
  if (!options.end && (prompt === undefined || prompt.trim() === ''))
    throw usage('a prompt is needed: agency task "what to do" (or --end to end a session).');
  for (const label of options.label ?? []) {
    const parsed = labelSchema.safeParse(label);
    if (!parsed.success) throw usage(`--label "${label}": ${parsed.error.issues[0]!.message}.`);
  }
  if ((options.label?.length ?? 0) > MAX_LABELS) throw usage(`--label: at most ${MAX_LABELS} labels.`);
  if (options.label?.length && (options.continue || options.end || options.session))
    throw usage("--label is for a new task: the session's worker takes the next prompt of a session.");
  if (options.agent && (options.continue || options.end))
    throw usage(
      `--agent cannot be combined with --${options.end ? 'end' : 'continue'}: the session's worker takes it.`,
    );
}
