// A TaskDispatch whose "workers" run a script in-process: each turn writes the files the script names into the
// task's workdir and answers with its output. Tasks are kept as JSON files in `dir`, so a director process killed
// with -9 and started again finds its tasks where it left them, as it would on a real worker.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkerTask } from '../../src/fleet/api/worker-schemas.ts';
import type { DispatchedTask, DispatchOutcome, TaskDispatch } from '../../src/fleet/directors/task-dispatch.ts';

/** What one turn does: files written into the workdir, the answer, or a failure. */
export type ScriptedTurn = { output?: string; files?: Record<string, string>; fail?: string; lost?: boolean };

/** Decides a turn from its prompt, its workdir and its number in the session (1 for the first). */
export type Script = (turn: { prompt: string; workdir: string; turn: number; task_id: string }) => ScriptedTurn;

type TaskFile = {
  task_id: string;
  session_id: string;
  workdir: string;
  state: WorkerTask['state'] | 'lost';
  prompts: string[];
  output: string | null;
  error: string | null;
};

/** A scripted dispatch, and what it was asked. */
export type ScriptedDispatch = TaskDispatch & { tasks(): TaskFile[] };

/**
 * The script the GitHub director's tests use: the work prompt writes `issue-<n>.txt` (n from "#<n>"), a review
 * answers LGTM, a follow-up writes `follow-up-<turn>.txt`.
 */
export const issueScript: Script = ({ prompt, turn }) => {
  if (prompt.startsWith('New comments'))
    return { output: `Addressed in turn ${turn}.`, files: { [`follow-up-${turn}.txt`]: prompt } };
  if (/review/i.test(prompt)) return { output: 'Checked the change. LGTM' };
  const number = /#(\d+)/.exec(prompt)?.[1] ?? 'x';
  return { output: `Wrote issue-${number}.txt.`, files: { [`issue-${number}.txt`]: `fixed #${number}\n` } };
};

/** A dispatch over `dir` running `script`. */
export function createScriptedDispatch(dir: string, script: Script = issueScript): ScriptedDispatch {
  mkdirSync(dir, { recursive: true });
  const path = (id: string) => join(dir, `${id}.json`);
  const read = (id: string): TaskFile => JSON.parse(readFileSync(path(id), 'utf8')) as TaskFile;
  const write = (task: TaskFile) => writeFileSync(path(task.task_id), JSON.stringify(task));
  const runTurn = (task: TaskFile, prompt: string) => {
    task.prompts.push(prompt);
    const result = script({ prompt, workdir: task.workdir, turn: task.prompts.length, task_id: task.task_id });
    for (const [name, text] of Object.entries(result.files ?? {})) writeFileSync(join(task.workdir, name), text);
    task.output = result.output ?? null;
    task.state = result.lost ? 'lost' : result.fail ? 'failed' : 'idle';
    task.error = result.fail ?? null;
    write(task);
  };
  const toTask = (task: TaskFile): WorkerTask => ({
    task_id: task.task_id,
    state: task.state === 'lost' ? 'failed' : task.state,
    executor: 'builtin',
    exit_code: task.state === 'failed' ? 1 : 0,
    started_at: '2026-01-01T00:00:00Z',
    completed_at: null,
    duration_seconds: null,
    output: task.output,
    error: task.error ? { type: 'executor_error', message: task.error } : null,
    session_id: task.session_id,
    token_usage: null,
    cost_usd: null,
    turns: task.prompts.length,
  });
  const ref = (task: TaskFile): DispatchedTask => ({
    worker: { name: 'scripted', url: 'http://127.0.0.1:9' },
    task_id: task.task_id,
    session_id: task.session_id,
  });
  const tasks = () =>
    readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as TaskFile);
  return {
    async dispatch(request) {
      if (!request.workdir) throw new Error('the scripted dispatch needs a workdir');
      const n = readdirSync(dir).length + 1;
      const id = `task-${String(n).padStart(6, '0')}${randomUUID().replaceAll('-', '').slice(0, 20)}`;
      const task: TaskFile = {
        task_id: id,
        session_id: request.session_id ?? randomUUID(),
        workdir: request.workdir,
        state: 'queued',
        prompts: [],
        output: null,
        error: null,
      };
      runTurn(task, request.prompt);
      return ref(task);
    },
    async settle(dispatched): Promise<DispatchOutcome> {
      const task = read(dispatched.task_id);
      if (task.state === 'lost') return { state: 'lost', error: { type: 'worker_lost', message: 'the worker died' } };
      if (task.state === 'failed')
        return { state: 'failed', task: toTask(task), error: { type: 'executor_error', message: task.error ?? '' } };
      return { state: task.state as 'idle' | 'completed' | 'cancelled', task: toTask(task) };
    },
    async continue(dispatched, prompt) {
      runTurn(read(dispatched.task_id), prompt);
    },
    async end(dispatched) {
      write({ ...read(dispatched.task_id), state: 'completed' });
    },
    async cancel(dispatched) {
      write({ ...read(dispatched.task_id), state: 'cancelled' });
    },
    async find(placement) {
      if (placement.continued) {
        const task = read(placement.continued.task_id);
        return task.prompts.length > placement.continued.turns_before ? ref(task) : undefined;
      }
      const found = tasks().find((task) => task.session_id === placement.session_id);
      return found ? ref(found) : undefined;
    },
    tasks,
  };
}
