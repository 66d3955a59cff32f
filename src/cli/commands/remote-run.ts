import type { ResumeBudgets, StartTaskRequest } from '../../client/index.ts';
import { AgencyError } from '../../core/errors.ts';
import type { StopReason } from '../../task/contracts/state.ts';
import { EXIT, exitCodeFor } from '../exit-codes.ts';
import { createProgressView, formatResult, type Output } from '../render.ts';
import { connect, type Remote, taskIdArgument } from '../remote/connect.ts';
import { doTaskResultOf } from '../remote/result-json.ts';
import { readTaskToSend } from '../remote/task-upload.ts';
import { runStopNotice, stopOnSignals } from '../signals.ts';
import type { RunCommandOptions } from './run.ts';
import type { ServerFlags } from './register-server-options.ts';

/** Options of `agency run --server` and `agency resume --server`. */
export type RemoteRunOptions = RunCommandOptions & ServerFlags;

// What a run may do, and its prices, are the operator's to set: on a server, its operator sets them.
const OPERATORS = "with --server, the server's operator sets it (agency serve takes the same option)";
const LOCAL_ONLY = {
  price: OPERATORS,
  config: OPERATORS,
  policy: OPERATORS,
  sandbox: OPERATORS,
  allowHost: OPERATORS,
  record: 'a cassette records model calls where the run is; with --server, that is the server',
  prompts: 'prompt versions are read where the run is; with --server, that is the server',
  prompt: 'prompt versions are read where the run is; with --server, that is the server',
};

/**
 * `agency run <root> --server URL`: sends the task folder's brief and files to the server, then follows the run
 * there as `agency run` follows a local one (the same progress view, `--json` output and exit codes).
 * `agency resume <task id> --server URL`: resumes a task on the server, then follows it.
 */
export async function remoteRunCommand(
  root: string,
  options: RemoteRunOptions,
  mode: 'start' | 'resume',
  out: Output,
  err: Output,
): Promise<number> {
  const remote = connect(options, LOCAL_ONLY);
  if (mode === 'start') return follow(remote, await startTask(remote, root, options, out), 0, options, out, err);
  const id = taskIdArgument(root);
  if (options.role !== undefined)
    throw new AgencyError(
      'invalid_argument',
      '--role: a task on a server keeps the role it was started with; leave --role out',
    );
  const after = (await remote.client.tasks.get(id)).last_seq;
  const budgets = budgetsOf(options);
  try {
    await remote.client.tasks.resume(id, budgets ? { budgets } : {});
  } catch (error) {
    // Resuming a run that finished for good is not a failure: report how it ended, with its exit code.
    const reason = AgencyError.hasCode(error, 'task_finished') ? error.details?.finish_reason : undefined;
    if (typeof reason !== 'string') throw error;
    out.write(`${error instanceof Error ? error.message : ''}. See: ${remote.command('status', id)}\n`);
    return exitCodeFor(reason as StopReason);
  }
  return follow(remote, id, after, options, out, err);
}

async function startTask(remote: Remote, root: string, options: RemoteRunOptions, out: Output): Promise<string> {
  const sent = await readTaskToSend(root);
  const budgets = budgetsOf(options);
  const request: StartTaskRequest = {
    brief: sent.brief,
    ...(options.model ? { model: options.model } : {}),
    ...(options.role ? { role: options.role } : {}),
    ...(options.approvals ? { approvals: { mode: options.approvals } } : {}),
    ...(budgets ? { budgets } : {}),
    // Files go up while the task is held, so the run starts with all of them.
    ...(sent.files.length > 0 ? { hold: true } : {}),
  };
  const { client } = remote;
  const { task_id: id } = await client.tasks.start(request);
  if (sent.files.length > 0) {
    await client.tasks.upload(id, sent.files);
    await client.tasks.release(id);
  }
  if (!options.json) {
    const files = sent.files.length > 0 ? ` and ${sent.files.length} file(s) of task/` : '';
    out.write(`Started ${id} on ${remote.url}, from ${sent.briefFile}${files}.\n`);
    out.write(`  Follow it from elsewhere: ${remote.command('tail', id, '-f')}\n`);
  }
  return id;
}

// Follows the run's events to its end, then prints its result; Ctrl-C stops it on the server.
async function follow(
  remote: Remote,
  id: string,
  after: number,
  options: RemoteRunOptions,
  out: Output,
  err: Output,
): Promise<number> {
  const { client, url } = remote;
  const view = createProgressView(
    out,
    id,
    {
      ...(options.maxCost ? { maxCostUsd: options.maxCost } : {}),
      ...(options.maxTotalTokens ? { maxTotalTokens: options.maxTotalTokens } : {}),
    },
    {
      approvalsByHand: options.approvals !== 'auto',
      decideCommand: (verb, request) => remote.command(verb, id, request),
    },
  );
  // A run taken out of the queue by the stop never finishes: following it ends with the stop.
  const following = new AbortController();
  let notRunning: string | undefined;
  const stop = async () => {
    const answer = await client.tasks.stop(id, { reason: 'cancelled' });
    if (['running', 'waiting_approval', 'queued'].includes(answer.status)) return;
    notRunning = answer.message;
    following.abort();
  };
  const removeSignalHandlers = stopOnSignals(
    out,
    runStopNotice(remote.command('resume', id)),
    () => void stop().catch((error: unknown) => err.write(`agency: ${(error as Error).message}\n`)),
  );
  try {
    const events = client.tasks.events(id, {
      after,
      signal: following.signal,
      onReconnect: ({ error, delayMs, attempt }) =>
        err.write(`agency: lost ${url} (${error.message}); reconnecting in ${delayMs} ms (attempt ${attempt})\n`),
    });
    for await (const frame of events) {
      if (options.json) out.write(`${JSON.stringify(frame)}\n`);
      else view.onFrame(frame);
    }
  } catch (error) {
    if (notRunning === undefined) throw error;
    view.close();
    out.write(`${id}: ${notRunning}\n`);
    return EXIT.stopped;
  } finally {
    removeSignalHandlers();
  }
  view.close();
  const result = doTaskResultOf(await client.tasks.result(id, { view: options.view ?? 'summary' }));
  out.write(
    options.json
      ? `${JSON.stringify({ result })}\n`
      : formatResult({ ...result, progressDir: `${result.progressDir} on ${url}` }, out),
  );
  return exitCodeFor(result.finishReason);
}

// The budget flags in the API's words; undefined when none is given.
function budgetsOf(options: RemoteRunOptions): ResumeBudgets | undefined {
  const budgets: ResumeBudgets = {
    ...(options.maxIterations ? { max_iterations: options.maxIterations } : {}),
    ...(options.maxCost ? { max_cost_usd: options.maxCost } : {}),
    ...(options.maxTotalTokens ? { max_total_tokens: options.maxTotalTokens } : {}),
    ...(options.maxTime ? { max_wall_clock_ms: Math.ceil(options.maxTime * 1000) } : {}),
  };
  return Object.keys(budgets).length > 0 ? budgets : undefined;
}
