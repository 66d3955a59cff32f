import type { SandboxLimits } from './sandbox-limits.ts';

/** The sandbox implementations agency ships. */
export type SandboxName = 'bwrap' | 'none';

/**
 * A host file bound read-only at `path` inside the sandbox for one run. {@link runSandboxed} creates these from
 * {@link SandboxFile}s; pass them to `wrap` yourself only if you stage the files yourself.
 */
export type FileMount = {
  /** Absolute path of the file on the host. */
  hostPath: string;
  /** Absolute path where the sandboxed command sees it. */
  path: string;
};

/** What a sandboxed command may see and touch. Every path is absolute and chosen by the harness. */
export type WrapOptions = {
  /**
   * The only writable directory besides `readWritePaths`, and the command's working directory. It must be an
   * absolute, existing directory chosen by the harness, never by the model: a model-chosen working directory made
   * the writable root attacker-controlled in Codex (CVE-2025-59532).
   */
  workdir: string;
  /** Host files or directories visible read-only at the same path. @default [] */
  readOnlyPaths?: readonly string[] | undefined;
  /** Host files or directories writable at the same path. System directories are refused. @default [] */
  readWritePaths?: readonly string[] | undefined;
  /** Share the host network. Off means a private network namespace with only loopback. @default false */
  allowNetwork?: boolean | undefined;
  /**
   * The complete environment of the command; nothing is inherited from the host. A minimal `PATH` is added when
   * absent. @default {}
   */
  env?: Readonly<Record<string, string>> | undefined;
  /** Files bound read-only into the sandbox, such as staged credentials. @default [] */
  fileMounts?: readonly FileMount[] | undefined;
  /**
   * Process, memory, CPU, file-size and scratch-space limits. The bwrap sandbox applies them; the unsandboxed
   * opt-out validates them and applies none. @default DEFAULT_SANDBOX_LIMITS
   */
  limits?: SandboxLimits | undefined;
};

/** The argv to spawn, without a shell: run `file` with `args` and exactly `env`, in `cwd`. */
export type WrappedCommand = {
  file: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Bytes written to extra descriptors: `inputs[i]` goes to fd `3 + i`, which is then closed. @default [] */
  inputs?: readonly Uint8Array[];
  /**
   * The index in `inputs` the process waits on before it starts the command. Its bytes are written only once the
   * process has been placed (in a pids cgroup, for one), so nothing the command runs can start outside it.
   */
  releaseInput?: number;
};

/**
 * The sandbox port: turns a command into the argv that runs it isolated. `wrap` spawns nothing and writes nothing;
 * it validates the options (and reads the file system to resolve them) and throws AgencyError `invalid_argument`
 * for bad ones. Spawn the result with {@link runSandboxed}.
 */
export type Sandbox = {
  readonly name: SandboxName;
  wrap(command: readonly string[], options: WrapOptions): WrappedCommand;
};

/** A file written for one run only, then deleted, such as a credential. */
export type SandboxFile = {
  /** Absolute path inside the sandbox, outside the workdir and every bound path, e.g. `/run/secrets/token`. */
  path: string;
  content: string | Uint8Array;
  /** File mode. @default 0o400 */
  mode?: number;
};

/** The minimal `PATH` given to sandboxed commands that are not passed one. */
export const DEFAULT_SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
