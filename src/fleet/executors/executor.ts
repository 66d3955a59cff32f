import type { ExecutorKind, TaskErrorType } from '../api/worker-schemas.ts';

/** Something an executor reports while it works: lifecycle, a tool it used and its result, a retry, its usage. */
export type ExecutorEvent =
  | { type: 'started'; message: string; pid?: number }
  | { type: 'tool.call'; tool: string; input: unknown; id?: string }
  | { type: 'tool.result'; tool: string; ok: boolean; id?: string }
  | { type: 'text'; text: string }
  | { type: 'usage'; input: number; output: number; costUsd?: number }
  | { type: 'warning'; message: string };

/** One run of an executor: a new session, or a continued one (`resume`), in its session directory. */
export type ExecutorRequest = {
  taskId: string;
  sessionId: string;
  /** True when the session already ran once here: the executor continues it (Claude Code's `--resume`). */
  resume: boolean;
  /**
   * Set when this worker took the task over from a worker lost while it ran (`epoch`: its take): an executor that can
   * continue the lost run from the files it left in `workdir` does (the built-in one, from its journal); the others
   * are never given it.
   */
  retake?: { epoch: number } | undefined;
  /** The whole prompt: embedded instructions, the project's prompt, then the task's. */
  prompt: string;
  model: string | undefined;
  /** `<session_dir>/<session_id>/`: the only place the executor may write, besides what the config allows. */
  workdir: string;
  timeoutMs: number;
  /** The environment the executor process gets: only what the worker puts there (credentials, HOME, PATH). */
  env: Record<string, string>;
  /** Aborted on cancel: SIGTERM to the whole process tree, SIGKILL 10 s later. */
  signal: AbortSignal;
  onEvent(event: ExecutorEvent): void;
};

/** How an executor run ended. */
export type ExecutorResult = {
  exitCode: number | null;
  /** The final answer, or what there is of it when the run was cancelled or timed out. */
  output: string;
  error?: { type: TaskErrorType; message: string };
  usage?: { input: number; output: number };
  costUsd?: number;
  /** The process's raw output, kept with the history (`GET /task/:id/debug`). */
  stdout: string;
  stderr: string;
};

/**
 * An executor: what a worker runs a task with. One process per task, inside the sandbox; `check` answers before the
 * worker takes tasks (e.g. `claude --version`).
 */
export type Executor = {
  readonly kind: ExecutorKind;
  check(): Promise<{ ok: true; version: string } | { ok: false; problem: string }>;
  run(request: ExecutorRequest): Promise<ExecutorResult>;
};
