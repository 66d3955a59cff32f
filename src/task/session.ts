import { errorMessage } from '../core/errors.ts';
import type { IdGenerator } from '../core/ids.ts';
import { type BudgetTracker, createBudgetTracker, usageToJson } from './budgets.ts';
import type { EventFrame, EventInput } from './contracts/events.ts';
import type { SpecFile } from './contracts/spec.ts';
import { STATE_VERSION, type StateFile, type StopReason } from './contracts/state.ts';
import type { ApprovalBroker } from './approvals/broker.ts';
import type { JournalFold } from './journal-fold.ts';
import type { Journal } from './journal/journal.ts';
import type { TaskPaths } from './layout.ts';
import { runStop } from './run-stop.ts';
import type { StateStore } from './state-store.ts';
import { createStateWriter, type StateWriter } from './state-writer.ts';
import type { TaskFiles } from './fs/task-files.ts';
import type { ToolWrites } from './tool-writes.ts';

/** Receives every journaled frame of a run, as it is appended, with the run's task id. */
export type RunListener = (frame: EventFrame, taskId: string) => void;

/** The live parts of one run: its folder, contracts, journal, state and budgets. */
export type Session = {
  readonly paths: TaskPaths;
  /** The run's own files: confined to the task folder, never through a link, redacted on write. */
  readonly files: TaskFiles;
  readonly spec: SpecFile;
  /** The run's journal; each flush first runs the hooks added with `beforeCommit`. */
  readonly journal: Journal;
  readonly broker: ApprovalBroker;
  /** What tools write under `progress/`, made durable before the journal commit that follows. */
  readonly toolWrites: ToolWrites;
  readonly budgets: BudgetTracker;
  readonly state: StateFile;
  readonly signal: AbortSignal;
  readonly now: () => number;
  readonly newId: IdGenerator;
  /** Steps completed in an earlier process, and steps started but not finished. */
  readonly fold: JournalFold;
  /** Appends a frame to the journal and tells the listeners. */
  emit(event: EventInput): EventFrame;
  /**
   * A step boundary: makes the journal durable (one fsync, shared with any flush in flight), then hands the state to
   * be written to `state.json` behind the run. Throws if an earlier state write failed.
   */
  boundary(changes?: StateChanges): Promise<void>;
  /** Changes the state in memory; the next boundary writes it. */
  update(changes: StateChanges): void;
  /** Waits for the state writes handed over so far. @throws the first failed write */
  settle(): Promise<void>;
  /**
   * Runs `hook` before each journal commit until the returned function is called: what is worth writing only when
   * the journal is about to vouch for it (an agent step's latest checkpoint) is written then.
   */
  beforeCommit(hook: () => Promise<void>): () => void;
  /** Throws a RunStop if a stop was asked for (STOP file, `stop()`, the wall clock). */
  checkStop(): Promise<void>;
  /** Asks the run to stop: at once if a step is in flight, else at the next boundary. */
  requestStop(reason: StopReason): void;
  /** The reason a stop was asked for, if one was. */
  readonly stopReason: StopReason | undefined;
  /** Counts a completed step. */
  stepDone(id: string): void;
  noteVerifyAttempt(attempt: number): void;
  warn(message: string): void;
  readonly warnings: string[];
  /** Scrubs secrets from anything the run writes under `progress/` besides the journal (which redacts itself). */
  redact<T>(value: T): T;
};

/** The parts of the state a loop may change. */
export type StateChanges = Partial<
  Pick<StateFile, 'phase' | 'status' | 'last_step_id' | 'plan_sig' | 'approved_plan_sig'>
>;

/** What {@link createSession} needs. */
export type SessionParts = {
  paths: TaskPaths;
  files: TaskFiles;
  spec: SpecFile;
  journal: Journal;
  stateStore: StateStore;
  broker: ApprovalBroker;
  toolWrites: ToolWrites;
  fold: JournalFold;
  loop: { name: string; version: string };
  startedAt: string;
  listeners: Set<RunListener>;
  signal: AbortSignal;
  now: () => number;
  newId: IdGenerator;
  redact: <T>(value: T) => T;
};

/** Wires a run's parts together. */
export function createSession(parts: SessionParts): Session {
  const { paths, spec, stateStore, fold, listeners, now } = parts;
  const hooks = new Set<() => Promise<void>>();
  const journal = committingAfter(parts.journal, hooks);
  const budgets = budgetsFromFold(spec, fold, now);
  const state = initialState(parts, budgets);
  let stopReason: StopReason | undefined;
  const warnings: string[] = [];
  const stopping = new AbortController();
  const signal = AbortSignal.any([parts.signal, stopping.signal]);
  const writer = createStateWriter(stateStore);
  const durable: DurableParts = { journal, writer, toolWrites: parts.toolWrites, spec, budgets, state, now };

  const session: Session = {
    paths,
    files: parts.files,
    spec,
    journal,
    broker: parts.broker,
    toolWrites: parts.toolWrites,
    budgets,
    state,
    signal,
    now,
    newId: parts.newId,
    fold,
    warnings,
    redact: parts.redact,
    emit(event) {
      return emitToListeners(journal, listeners, event, spec.task_id);
    },
    boundary(changes = {}) {
      return writeBoundary(durable, changes);
    },
    update(changes) {
      Object.assign(state, changes);
    },
    settle: () => writer.settle(),
    beforeCommit(hook) {
      hooks.add(hook);
      return () => hooks.delete(hook);
    },
    get stopReason() {
      return stopReason;
    },
    checkStop() {
      return checkStopConditions(parts, budgets, stopReason);
    },
    requestStop(reason) {
      if (stopReason) return;
      stopReason = reason;
      stopping.abort(runStop(reason));
    },
    stepDone() {
      state.steps_done++;
    },
    noteVerifyAttempt(attempt) {
      state.verify_attempts = Math.max(state.verify_attempts, attempt);
    },
    warn(message) {
      warnings.push(message);
      session.emit({ type: 'warning', message });
    },
  };
  return session;
}

type DurableParts = {
  journal: Journal;
  writer: StateWriter;
  toolWrites: ToolWrites;
  spec: SpecFile;
  budgets: BudgetTracker;
  state: StateFile;
  now: () => number;
};

// Budgets resume from what the journal says earlier processes of this run already spent.
function budgetsFromFold(spec: SpecFile, fold: JournalFold, now: () => number): BudgetTracker {
  return createBudgetTracker(
    spec.budgets,
    {
      usage: fold.usage,
      iterations: fold.modelCalls,
      consecutiveToolIterations: fold.consecutiveToolIterations,
      elapsedMs: fold.elapsedMs,
    },
    now,
  );
}

function initialState(parts: SessionParts, budgets: BudgetTracker): StateFile {
  const { spec, fold, now } = parts;
  return {
    version: STATE_VERSION,
    task_id: spec.task_id,
    loop: parts.loop,
    phase: fold.phase,
    status: 'running',
    plan_sig: fold.planSig,
    approved_plan_sig: fold.approvedPlanSig,
    last_step_id: null,
    last_seq: fold.lastSeq,
    steps_done: fold.finishedSteps.size,
    verify_attempts: fold.verifyAttempts,
    budgets: { limits: spec.budgets, remaining: budgets.remaining() },
    usage: usageToJson(budgets.usage),
    finish_reason: null,
    started_at: parts.startedAt,
    updated_at: new Date(now()).toISOString(),
  };
}

// The journal as the run sees it: every flush first runs the pre-commit hooks.
function committingAfter(journal: Journal, hooks: Set<() => Promise<void>>): Journal {
  return {
    append: (event) => journal.append(event),
    async flush() {
      for (const hook of [...hooks]) await hook();
      await journal.flush();
    },
    read: () => journal.read(),
    close: () => journal.close(),
    get lastSeq() {
      return journal.lastSeq;
    },
    get durableSeq() {
      return journal.durableSeq;
    },
  };
}

function emitToListeners(journal: Journal, listeners: Set<RunListener>, event: EventInput, taskId: string): EventFrame {
  const frame = journal.append(event);
  for (const listener of listeners) {
    try {
      listener(frame, taskId);
    } catch {
      // A listener's failure must not break the run or the journal.
    }
  }
  return frame;
}

// The journal is flushed before the state is handed over, so `state.json` never points past what is durable; a
// boundary comes where no model call is in flight, so the usage is the fold's up to `last_seq`.
async function writeBoundary(
  { journal, writer, toolWrites, spec, budgets, state, now }: DurableParts,
  changes: StateChanges,
): Promise<void> {
  Object.assign(state, changes);
  await toolWrites.sync();
  await journal.flush();
  state.last_seq = journal.durableSeq;
  state.usage = usageToJson(budgets.usage);
  state.budgets = { limits: spec.budgets, remaining: budgets.remaining() };
  state.updated_at = new Date(now()).toISOString();
  writer.submit(state);
}

async function checkStopConditions(
  parts: SessionParts,
  budgets: BudgetTracker,
  stopReason: StopReason | undefined,
): Promise<void> {
  if (stopReason) throw runStop(stopReason);
  if (parts.signal.aborted) throw runStop('cancelled', 'The run was cancelled');
  if (await parts.files.exists(parts.paths.stop))
    throw runStop('stopped', `${parts.paths.stop} exists: the run stops here`);
  const wall = budgets.checkWallClock();
  if (wall) throw runStop(wall, `The wall-clock budget of ${parts.spec.budgets.max_wall_clock_ms} ms is spent`);
}

/** A message for an unexpected failure, for the journal's `error` frame. */
export function failureMessage(error: unknown): string {
  return errorMessage(error);
}
