import { AgencyError } from '../../../../core/errors.ts';
import { sha256Hex } from '../../../../core/sha256.ts';
import type { WorkerTaskRequest } from '../../../api/worker-schemas.ts';
import { findComponent, isTaskableAgent } from '../../../discovery/component.ts';
import { placeTask } from '../../cli/place-task.ts';
import { isFinal } from '../../cli/locate-session.ts';
import { findPlaced, type Placement, sessionIdOf } from '../../placement.ts';
import type { DispatchedTask } from '../../task-dispatch.ts';
import type { DelegationContext } from './delegation-context.ts';
import type { Delegation } from './delegation-ledger.ts';
import { checkWorkdir } from './workdir-scope.ts';

/** What `delegate_task` is asked. */
export type DelegationArgs = {
  prompt: string;
  worker?: string | undefined;
  workdir?: string | undefined;
  session?: string | undefined;
  model?: string | undefined;
  timeout_seconds?: number | undefined;
};

/** What `delegate_task` answers: where the task went, to await it. */
export type DelegationAnswer = {
  task_id: string;
  session_id: string;
  worker: { name: string; url: string };
  how: Delegation['how'];
  workdir: string | null;
};

/**
 * Sends one delegation, at most once per tool call even across a crash of the manager: the delegation is written
 * to the ledger (`sending`, with the session it will use) before any worker is asked, and `sent` once one took it.
 * Called again for the same tool call (the run resumed and re-ran it), a `sent` delegation is answered from the
 * ledger, and a `sending` one is looked for on the workers first (see {@link findPlaced}) and sent only if no
 * worker has it.
 */
export async function sendDelegation(
  context: DelegationContext,
  args: DelegationArgs,
  toolCallId: string,
  signal: AbortSignal,
): Promise<DelegationAnswer> {
  const { ledger } = context;
  const key = ledger.keyOf(toolCallId);
  const known = await ledger.get(key);
  if (known?.state === 'sent') return answerOf(known);
  const all = await ledger.all();
  if (known) {
    const recorded = new Set(all.flatMap((delegation) => (delegation.task_id ? [delegation.task_id] : [])));
    const found = await findPlaced(context, placementOf(known), recorded);
    if (found) return answerOf(await markSent(context, known, found));
  }
  const announced = known ?? (await announce(context, key, args, all));
  return answerOf(await markSent(context, announced, await send(context, announced, args, signal, all)));
}

// Decides how the task goes out (a new session, or the next turn of one this manager delegated) and writes it down
// before anything is sent.
async function announce(
  context: DelegationContext,
  key: string,
  args: DelegationArgs,
  all: readonly Delegation[],
): Promise<Delegation> {
  const base = {
    version: 1 as const,
    key,
    state: 'sending' as const,
    prompt_sha256: sha256Hex(args.prompt),
    at: new Date(context.now()).toISOString(),
  };
  const delegation: Delegation = args.session
    ? { ...base, ...(await carryOn(context, args, all)) }
    : {
        ...base,
        how: 'started',
        session_id: sessionIdOf(key),
        worker: args.worker ? await discovered(context, args.worker) : null,
        task_id: null,
        turns_before: null,
        workdir: args.workdir ? await checkWorkdir(args.workdir, context.readablePaths) : null,
      };
  await context.ledger.put(delegation);
  return delegation;
}

// The next turn of a session this manager delegated: on its worker, in its workdir.
async function carryOn(context: DelegationContext, args: DelegationArgs, all: readonly Delegation[]) {
  const prior = all.findLast((delegation) => delegation.session_id === args.session && delegation.state === 'sent');
  if (!prior?.worker || !prior.task_id)
    throw new AgencyError(
      'invalid_argument',
      `session ${args.session} is not one this manager delegated; continue only the session_id of an earlier delegate_task`,
    );
  const { worker, task_id: taskId } = prior;
  if (args.worker && (await discovered(context, args.worker)).url !== worker.url)
    throw new AgencyError(
      'invalid_argument',
      `session ${args.session} lives on ${worker.name}; leave worker out to continue it there, or start a new session`,
    );
  if (args.workdir && (await checkWorkdir(args.workdir, context.readablePaths)) !== prior.workdir)
    throw new AgencyError('invalid_argument', `session ${args.session} works in ${prior.workdir ?? 'its session dir'}`);
  const task = await context.clientFor(worker.url).task(taskId);
  if (!isFinal(task.state) && task.state !== 'idle')
    throw new AgencyError('task_active', `${taskId} of session ${args.session} is ${task.state}; await_task it first`);
  const continued = task.state === 'idle';
  return {
    how: continued ? ('continued' as const) : ('resumed' as const),
    session_id: prior.session_id,
    worker,
    task_id: continued ? taskId : null,
    turns_before: continued ? task.turns : null,
    workdir: prior.workdir,
  };
}

async function send(
  context: DelegationContext,
  delegation: Delegation,
  args: DelegationArgs,
  signal: AbortSignal,
  all: readonly Delegation[],
): Promise<DispatchedTask> {
  const { worker, session_id, workdir } = delegation;
  if (delegation.how === 'continued' && worker && delegation.task_id) {
    const task = { worker, task_id: delegation.task_id, session_id };
    await context.dispatch.continue(task, args.prompt, { signal });
    return task;
  }
  const request: WorkerTaskRequest & { workdir?: string } = {
    prompt: args.prompt,
    session_id,
    ...(args.model ? { model: args.model } : {}),
    ...(args.timeout_seconds ? { timeout_seconds: args.timeout_seconds } : {}),
    ...(workdir ? { workdir } : {}),
  };
  if (!worker) {
    const prefer = workdir ? all.findLast((d) => d.workdir === workdir && d.worker)?.worker?.name : undefined;
    return context.dispatch.dispatch(
      { ...request, ...(prefer ? { prefer } : {}), waitMs: context.waitForWorkerMs },
      { signal },
    );
  }
  // A named worker, or the one that holds the session: that worker or none.
  const placed = await placeTask({
    candidates: async () => (await context.discover()).filter((component) => component.url === worker.url),
    send: (client) => client.submit(request, { signal }),
    clientFor: context.clientFor,
    waitMs: context.waitForWorkerMs,
    signal,
  });
  return { worker, task_id: placed.answer.task_id, session_id: placed.answer.session_id };
}

async function markSent(context: DelegationContext, delegation: Delegation, task: DispatchedTask): Promise<Delegation> {
  const sent: Delegation = { ...delegation, state: 'sent', worker: task.worker, task_id: task.task_id };
  await context.ledger.put(sent);
  return sent;
}

/** The worker a model named (its name, URL or port), if discovery found it as a taskable agent. */
export async function discovered(
  context: Pick<DelegationContext, 'discover'>,
  wanted: string,
): Promise<{ name: string; url: string }> {
  const components = await context.discover();
  const found = findComponent(components, wanted.trim());
  if (!found || !isTaskableAgent(found)) {
    const names = components.filter(isTaskableAgent).map((component) => component.status?.name ?? component.url);
    throw new AgencyError(
      'no_worker',
      `"${wanted}" is not a worker this manager found (${names.length ? names.join(', ') : 'none found'}); ` +
        'delegate only to a worker list_workers shows',
      { details: { worker: wanted } },
    );
  }
  return { name: found.status?.name ?? found.url, url: found.url };
}

function answerOf(delegation: Delegation): DelegationAnswer {
  return {
    task_id: delegation.task_id!,
    session_id: delegation.session_id,
    worker: delegation.worker!,
    how: delegation.how,
    workdir: delegation.workdir,
  };
}

// Where the delegation went, as the workers are searched for it: a continued task by its turn count, any other by
// the session it started or resumed.
function placementOf(delegation: Delegation): Placement {
  const { session_id, worker, task_id: taskId, turns_before: turnsBefore } = delegation;
  if (delegation.how !== 'continued' || !taskId) return { session_id, worker };
  return { session_id, worker, continued: { task_id: taskId, turns_before: turnsBefore ?? Number.POSITIVE_INFINITY } };
}
