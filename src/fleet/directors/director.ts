// The plug-in interface of the director host (`agency director <name>`). A kind of director (scheduler, GitHub,
// manager…) is a `DirectorKind`: its config schema, its state schema, and `create(context)`, which returns the
// running director: `run()`, its `status()` and its extra routes. The host does the rest, the same for every kind:
// config from `directors/<name>/config.yaml`, the port bound at once (`starting`), the universal `/status` and
// `/shutdown`, `/history`, `/agents`, bearer tokens beyond loopback, `director.log`, `state.json` written atomically,
// a running discovery, the local `TaskDispatch` and the workspace locks. Kinds are listed in `kinds.ts`.
import type { z } from 'zod';
import type { AgencyRoot } from '../../config/agency-root.ts';
import type { DirectorConfigBase, DirectorType } from '../../config/director-config.ts';
import type { Timers } from '../../core/clock.ts';
import type { Redactor } from '../../core/redact.ts';
import type { Route } from '../../http/route.ts';
import type { DirectorEntry } from '../api/director-schemas.ts';
import type { Component } from '../discovery/component.ts';
import type { DispatchedTask, TaskDispatch } from './task-dispatch.ts';

/**
 * A kind of director, as the host loads it.
 *
 * @example
 * export const schedulerKind = defineDirectorKind({
 *   type: 'scheduler',
 *   configSchema: directorConfigSchema({ schedule: z.array(entrySchema) }),
 *   stateSchema: z.object({ runs: z.array(runSchema) }).strict(),
 *   initialState: () => ({ runs: [] }),
 *   interfaces: ['configurable'],
 *   create: (context) => createScheduler(context),
 * });
 */
export type DirectorKind<Config extends DirectorConfigBase = DirectorConfigBase, State = unknown> = {
  /** The config's `type` this kind answers to. */
  type: DirectorType;
  /**
   * The whole `config.yaml`: the base fields and the kind's own, strict, as `directorConfigSchema(shape)` builds it.
   * Its errors are reported with the file, line and field, at start-up and by `agency validate`.
   */
  configSchema: z.ZodType<Config>;
  /** The kind's part of `state.json` (the host wraps it with a version, type and name). */
  stateSchema: z.ZodType<State>;
  /** The state of a director that has no `state.json` yet. */
  initialState(config: Config): State;
  /** What `/status` lists besides `statusable` and `observable`: `configurable` (an API changes its config). */
  interfaces: ReadonlyArray<'configurable' | 'taskable'>;
  /**
   * Makes the director, once its config and state are read and before its port is bound. It must not start work
   * here (the host calls `run()` once it is ready) and must not throw for a valid config.
   */
  create(context: DirectorContext<Config, State>): Director;
};

/** What a kind of director works with; everything it needs comes from here, so tests pass fakes in. */
export type DirectorContext<Config extends DirectorConfigBase = DirectorConfigBase, State = unknown> = {
  /** The config as checked at start-up. */
  config: Config;
  /** The data root (its `credentials/` hold what a kind needs to reach its service, e.g. a token). */
  root: AgencyRoot;
  /** Secrets a kind loads are registered here, so no log line or answer carries them. */
  redactor: Redactor;
  /** `directors/<name>/config.yaml` (a kind whose API changes its config rewrites it) and its directory. */
  files: { config: string; dir: string };
  /** `state.json`: what the director must remember across a restart (or a kill -9). */
  state: StateStore<State>;
  /** `history/`: the director's record of its work, served by `GET /history`. */
  history: DirectorHistory;
  /** Lifecycle lines: `director.log`, and the last 50 in `/status`. */
  log: DirectorLog;
  /** How work goes to workers. */
  dispatch: TaskDispatch;
  /** One task per workdir at a time, across every director of the data root. */
  locks: WorkspaceLocks;
  /** The components the director's discovery sees now (what `GET /agents` lists), with their health. */
  workers(): Component[];
  /** The clock and timers: tests pass fake ones. */
  timers: Timers;
  /** Aborts when shutdown begins: start no new work (in-flight work may go on until {@link signal}). */
  stopping: AbortSignal;
  /**
   * Aborts when the director must stop now (the drain time is over, SIGINT, SIGTERM). Work in flight is left as
   * `state.json` says; the next start resumes it. Pass it to every dispatch call.
   */
  signal: AbortSignal;
};

/** A running director, as its kind made it. */
export type Director = {
  /**
   * Does the director's work until `context.stopping` aborts (then it starts nothing new) and returns once nothing
   * is in flight or `context.signal` aborted. Resumes what `state.json` says was in flight. A rejection stops the
   * director with exit code 1.
   */
  run(): Promise<void>;
  /** What `/status` says of it now. */
  status(): DirectorActivity;
  /** Routes served besides the host's (`/status`, `/shutdown`, `/history`, `/agents`); [] for none. */
  routes: Route[];
};

/** The kind's part of `/status`. */
export type DirectorActivity = {
  /** `working` while it has work in flight (a task on a worker, a run waiting for one), else `idle`. */
  state: 'idle' | 'working';
  /** The work in flight, as `/status` shows it (`id` is its history entry's). */
  current_task: { id: string; started_at: string; prompt_preview: string } | null;
  /** Facts added to `/status` `config` (the schedule's size, the repository): never a secret. */
  config: Record<string, unknown>;
};

/** `state.json`, held in memory and written atomically (temp file, fsync, rename) on every change. */
export type StateStore<State> = {
  /** The state as last written (or read at start). Treat it as read-only; change it with `update`. */
  get(): State;
  /**
   * Applies `change` to the current state and writes it durably before resolving. Changes are applied one at a
   * time, in call order. Record what you are about to do *before* doing it (a dispatch), and what came of it after.
   */
  update(change: (state: State) => State): Promise<State>;
};

/** The director's history: one entry per piece of work, the last 100 finished ones kept. */
export type DirectorHistory = {
  /** Writes an entry (a new one, or a new version of one with the same id) atomically; lines beyond 200 are cut. */
  save(entry: DirectorEntry): Promise<void>;
  read(id: string): Promise<DirectorEntry | undefined>;
};

/** The director's lifecycle log (redacted): `director.log` and `/status`. */
export type DirectorLog = {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

/** Workspace locks: `AGENCY_ROOT/locks/<sha256 of the workdir's real path>.lock`. */
export type WorkspaceLocks = {
  /**
   * Takes the lock of `workdir` for this director. A lock whose holder process is gone is taken over, unless the
   * task recorded in it still runs on its worker; `resume` is the task this director is resuming after a restart,
   * whose lock it takes back.
   *
   * @throws AgencyError `workspace_locked` (retryable) naming the holder (director, pid, since when, its task);
   *   `invalid_argument` when the workdir is not an existing absolute directory.
   */
  acquire(workdir: string, options: { purpose: string; resume?: DispatchedTask }): Promise<WorkspaceLock>;
};

/** A workspace lock held by this director. */
export type WorkspaceLock = {
  /** The workdir's real path. */
  readonly workdir: string;
  /** Records the task dispatched under the lock: while it runs, the lock is not stale even if this process dies. */
  attach(task: DispatchedTask): Promise<void>;
  /** Releases the lock (only if this process still holds it). */
  release(): Promise<void>;
};

/**
 * Checks a kind's types once, where it is defined, and erases them for the host's list of kinds.
 */
export function defineDirectorKind<Config extends DirectorConfigBase, State>(
  kind: DirectorKind<Config, State>,
): DirectorKind {
  return kind;
}
