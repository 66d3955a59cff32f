// The task side of the fake worker: tasks move queued → working → idle (the turn is over, the session waits for
// continue or end) → completed, or to failed or cancelled, as seed 004 phase 2.4 and the wire contract describe.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { newId } from '../../src/core/ids.ts';
import {
  FINAL_WORKER_TASK_STATES,
  type TaskErrorType,
  type WorkerTask,
  type WorkerTaskState,
} from '../../src/fleet/api/worker-schemas.ts';

/** What one turn of a fake task does: work for a while, then answer, fail, or run a real process. */
export type FakeTurn = {
  workMs?: number;
  output?: string;
  fail?: { type: TaskErrorType; message: string };
  /** A real process to run instead of waiting; its stdout is the output, a non-zero exit fails the turn. */
  command?: [file: string, ...args: string[]];
};

/** Decides a turn from its prompt. */
export type FakeBehaviour = (prompt: string, turn: number) => FakeTurn;

/**
 * The default: `sleep <ms>` works that long, `fail` fails with `executor_error`, `timeout` fails with `timeout`;
 * any other prompt works 20 ms and answers `echo: <prompt>`.
 */
export const defaultBehaviour: FakeBehaviour = (prompt) => {
  const sleep = /\bsleep (\d+)/.exec(prompt);
  if (/^fail\b/.test(prompt)) return { workMs: 20, fail: { type: 'executor_error', message: 'the executor failed' } };
  if (/^timeout\b/.test(prompt)) return { workMs: 20, fail: { type: 'timeout', message: 'Task exceeded its timeout' } };
  return { workMs: sleep ? Number(sleep[1]) : 20, output: `echo: ${prompt}` };
};

/** A task the fake worker holds, with what its debug and history endpoints return. */
export type FakeTask = {
  task: WorkerTask;
  prompt: string;
  createdAt: string;
  log: Array<{ time: string; level: string; message: string }>;
  stdout: string;
  stderr: string;
  stop?: (() => void) | undefined;
};

const isFinal = (state: WorkerTaskState) => (FINAL_WORKER_TASK_STATES as readonly string[]).includes(state);

/** The fake worker's tasks and the transitions between their states. */
export function createFakeTasks({
  behaviour,
  onLog,
}: {
  behaviour: FakeBehaviour;
  onLog: (message: string, level?: string) => void;
}) {
  const tasks = new Map<string, FakeTask>();
  const now = () => new Date().toISOString();
  const note = (record: FakeTask, message: string, level = 'info') => {
    const line = { time: now(), level, message: `${record.task.task_id}: ${message}` };
    record.log.push(line);
    onLog(line.message, level);
  };
  const settle = (record: FakeTask, state: WorkerTaskState, patch: Partial<WorkerTask> = {}) => {
    const { task } = record;
    const started = task.started_at ? Date.parse(task.started_at) : Date.now();
    Object.assign(task, { state, duration_seconds: (Date.now() - started) / 1000, ...patch });
    if (isFinal(state)) task.completed_at = now();
  };

  function runTurn(record: FakeTask, prompt: string): void {
    const { task } = record;
    const turn = behaviour(prompt, task.turns);
    Object.assign(task, { state: 'working', started_at: task.started_at ?? now() });
    note(record, `working (turn ${task.turns})`);
    const finish = (output: string, exitCode: number, fail?: FakeTurn['fail']) => {
      if (task.state !== 'working') return;
      record.stop = undefined;
      const usage = {
        input: (task.token_usage?.input ?? 0) + prompt.length,
        output: (task.token_usage?.output ?? 0) + output.length,
      };
      if (fail) {
        settle(record, 'failed', { exit_code: exitCode || 1, error: fail, output: output || null, token_usage: usage });
        note(record, `failed: ${fail.type}`, 'error');
      } else {
        settle(record, 'idle', { exit_code: exitCode, output, token_usage: usage, cost_usd: 0 });
        note(record, 'turn finished; the session is open');
      }
    };
    if (turn.command) {
      const [file, ...args] = turn.command;
      const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (record.stderr += chunk.toString()));
      child.on('error', (error) => finish('', 127, { type: 'executor_error', message: error.message }));
      child.on('exit', (code) => {
        record.stdout += out;
        finish(out.trim(), code ?? 1, code === 0 ? undefined : { type: 'executor_error', message: `exit ${code}` });
      });
      record.stop = () => child.kill('SIGTERM');
      return;
    }
    const timer = setTimeout(() => {
      record.stdout += `${turn.output ?? ''}\n`;
      finish(turn.output ?? '', 0, turn.fail);
    }, turn.workMs ?? 0);
    record.stop = () => clearTimeout(timer);
  }

  return {
    tasks,
    get(taskId: string): FakeTask | undefined {
      return tasks.get(taskId);
    },
    /** The task that keeps the worker busy: queued, working or cancelling. */
    current(): FakeTask | undefined {
      return [...tasks.values()].find(({ task }) => ['queued', 'working', 'cancelling'].includes(task.state));
    },
    create(prompt: string, sessionId: string | null | undefined): FakeTask {
      const task: WorkerTask = {
        task_id: `task-${newId('task').slice(5).toLowerCase()}`,
        state: 'queued',
        executor: 'builtin',
        exit_code: null,
        started_at: null,
        completed_at: null,
        duration_seconds: null,
        output: null,
        error: null,
        session_id: sessionId ?? randomUUID(),
        token_usage: null,
        cost_usd: null,
        turns: 1,
      };
      const record: FakeTask = { task, prompt, createdAt: now(), log: [], stdout: '', stderr: '' };
      tasks.set(task.task_id, record);
      note(record, 'queued');
      // The executor starts on the next turn of the event loop, so a caller sees `queued` first.
      setImmediate(() => {
        if (task.state === 'queued') runTurn(record, prompt);
      });
      return record;
    },
    continueTask(record: FakeTask, prompt: string): void {
      record.task.turns += 1;
      record.prompt += `\n\n${prompt}`;
      runTurn(record, prompt);
    },
    end(record: FakeTask): void {
      settle(record, 'completed');
      note(record, 'session ended');
    },
    cancel(record: FakeTask, cancelMs: number): void {
      if (record.task.state === 'idle') {
        settle(record, 'cancelled', { error: { type: 'cancelled', message: 'Cancelled by the caller' } });
        return;
      }
      record.stop?.();
      settle(record, 'cancelling');
      note(record, 'cancelling');
      setTimeout(() => {
        settle(record, 'cancelled', { error: { type: 'cancelled', message: 'Cancelled by the caller' } });
        note(record, 'cancelled');
      }, cancelMs);
    },
    isFinal,
  };
}
