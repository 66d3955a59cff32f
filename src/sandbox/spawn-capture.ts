import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { descendantsOf, freeze, type ProcessRef, signalProcess } from './process-tree.ts';
import type { WrappedCommand } from './sandbox.ts';

/** Limits and controls for {@link spawnCapture}. */
export type CaptureOptions = {
  stdin?: string | Uint8Array | undefined;
  timeoutMs: number;
  killGraceMs: number;
  stdoutLimitBytes: number;
  stderrLimitBytes: number;
  signal?: AbortSignal | undefined;
  now: () => number;
  /**
   * Places the started process, for example in a pids cgroup, before the command's `releaseInput` is written. When
   * it throws, the process is killed and `spawnCapture` rejects with that error, unless the run was already being
   * stopped by its timeout or signal.
   */
  place?: (pid: number) => Promise<void>;
  /** Sees every chunk of output as it arrives, before the caps apply, for callers that stream it. Must not throw. */
  onOutput?: ((stream: 'stdout' | 'stderr', chunk: Buffer) => void) | undefined;
};

/** What a finished process did. Output is decoded as UTF-8. */
export type CaptureResult = {
  /** Null when the command was killed by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
};

// After the process exits, output still in flight gets this long before its pipes are closed, in case something
// outside the process group still holds them open.
const DRAIN_MS = 500;

/**
 * Spawns a wrapped command without a shell in its own process group and captures capped output. On timeout or abort
 * the whole group, and every process below the command, gets SIGTERM, then SIGKILL after `killGraceMs`; when the
 * command exits, whatever it left running in its group (or, after a stop, below it) is killed. Rejects only when the
 * process cannot be started.
 */
export function spawnCapture(command: WrappedCommand, options: CaptureOptions): Promise<CaptureResult> {
  const started = options.now();
  return new Promise((resolve, reject) => {
    const child = spawnInOwnGroup(command);
    const stdout = createSink(options.stdoutLimitBytes);
    const stderr = createSink(options.stderrLimitBytes);
    child.stdout.on('data', stdout.push);
    child.stderr.on('data', stderr.push);
    const { onOutput } = options;
    if (onOutput) {
      child.stdout.on('data', (chunk: Buffer) => onOutput('stdout', chunk));
      child.stderr.on('data', (chunk: Buffer) => onOutput('stderr', chunk));
    }
    child.stdin.on('error', () => {}); // the command may exit without reading its input
    child.stdin.end(options.stdin);
    const supervisor = superviseProcess(child, options);
    let placeError: Error | undefined;
    feedInputs(child, command, options.place).catch((error: unknown) => {
      // A run stopped during its setup (timeout, abort) may lose its processes while they are being placed: it
      // was never released, and its result says why it stopped.
      if (supervisor.timedOut() || supervisor.aborted()) return;
      placeError = error instanceof Error ? error : new Error(String(error));
      supervisor.kill();
    });

    child.once('error', (error) => {
      if (child.pid !== undefined) return; // a failed kill; the process itself still reports its exit
      supervisor.cleanup();
      reject(error);
    });
    child.once('exit', supervisor.afterExit);
    child.once('close', (exitCode, signal) => {
      supervisor.cleanup();
      if (placeError !== undefined) return reject(placeError);
      resolve({
        exitCode,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        stdoutTruncated: stdout.truncated(),
        stderrTruncated: stderr.truncated(),
        timedOut: supervisor.timedOut(),
        aborted: supervisor.aborted(),
        durationMs: Math.round(options.now() - started),
      });
    });
  });
}

type PipedProcess = ChildProcessByStdio<Writable, Readable, Readable>;

function spawnInOwnGroup(command: WrappedCommand): PipedProcess {
  const extra = (command.inputs ?? []).map(() => 'pipe' as const);
  return spawn(command.file, command.args, {
    cwd: command.cwd,
    env: command.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe', ...extra],
  });
}

// Writes each extra input to its descriptor (fd 3 + i) and closes it; the release input only after `place`.
async function feedInputs(child: PipedProcess, command: WrappedCommand, place: CaptureOptions['place']) {
  const inputs = command.inputs ?? [];
  const write = (i: number) => {
    const stream = child.stdio[3 + i] as Writable | null | undefined;
    stream?.on('error', () => {}); // bwrap may exit (a bad option) before reading
    stream?.end(inputs[i]);
  };
  for (const i of inputs.keys()) if (i !== command.releaseInput) write(i);
  if (command.releaseInput === undefined || child.pid === undefined) return;
  if (place) await place(child.pid);
  write(command.releaseInput);
}

/**
 * Stops the command's tree on timeout or abort: SIGTERM, then SIGKILL after `killGraceMs`. `afterExit` kills what the
 * command left behind and closes its pipes once they have had time to drain; `cleanup` clears every timer.
 */
function superviseProcess(child: PipedProcess, options: CaptureOptions) {
  let timedOut = false;
  let aborted = false;
  let stopping = false;
  const timers: NodeJS.Timeout[] = [];
  const tree = createTreeSignaller(child);
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void tree.signalTree('SIGTERM');
    timers.push(setTimeout(() => void tree.signalTree('SIGKILL'), options.killGraceMs));
  };
  const onAbort = () => {
    aborted = true;
    stop();
  };
  timers.push(
    setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs),
  );
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    timedOut: () => timedOut,
    aborted: () => aborted,
    kill: () => {
      stopping = true;
      void tree.signalTree('SIGKILL');
    },
    afterExit: () => {
      // Whatever the command leaves behind in its group, or (after a stop) anywhere below it, dies with it.
      tree.signalLeftovers('SIGKILL');
      timers.push(
        setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
        }, DRAIN_MS),
      );
    },
    cleanup: () => {
      for (const timer of timers) clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

function createTreeSignaller(child: PipedProcess) {
  const below: ProcessRef[] = [];
  const running = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  const signalLeftovers = (signal: NodeJS.Signals) => {
    killGroup(child.pid, signal);
    for (const process_ of below) signalProcess(process_, signal);
  };
  // Signals the command, its process group, and every process below it. The command is frozen while its tree is
  // listed: bwrap's sandbox leaves the group early in setup and only arms its die-with-parent signal at the end,
  // so a sandbox forked during the listing and then orphaned would keep running.
  const signalTree = async (signal: NodeJS.Signals) => {
    if (running() && child.pid !== undefined) {
      await freeze(child.pid);
      below.push(...descendantsOf(child.pid));
    }
    signalLeftovers(signal);
    if (running()) child.kill(signal);
    if (running()) child.kill('SIGCONT');
  };
  return { signalTree, signalLeftovers };
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** Keeps the first `limit` bytes of a stream (and notes whether more came), decoded as UTF-8 by `text`. */
export function createSink(limit: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  return {
    push: (chunk: Buffer) => {
      const room = limit - size;
      if (chunk.length > room) truncated = true;
      if (room <= 0) return;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      chunks.push(kept);
      size += kept.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    truncated: () => truncated,
  };
}
