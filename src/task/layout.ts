import { mkdir, stat, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import type { TaskFiles } from './fs/task-files.ts';

/** Every path of a task folder, from its root. See `docs/task-folder.md`. */
export type TaskPaths = {
  root: string;
  task: string;
  progress: string;
  brief: string;
  spec: string;
  state: string;
  events: string;
  notes: string;
  todo: string;
  findings: string;
  sources: string;
  planDir: string;
  planCurrent: string;
  /** An invalid plan waiting for a person to fix it (see docs/plan.md). */
  planDraft: string;
  approvalRequests: string;
  approvalDecisions: string;
  verifyDir: string;
  artifacts: string;
  steps: string;
  stop: string;
  lock: string;
  plan(version: number): string;
  verifyReport(attempt: number): string;
  step(id: string): string;
};

/** The paths of the task folder at `root`. */
export function taskPaths(root: string): TaskPaths {
  const base = resolve(root);
  const task = join(base, 'task');
  const progress = join(base, 'progress');
  return {
    root: base,
    task,
    progress,
    brief: join(task, 'brief.md'),
    spec: join(progress, 'spec.json'),
    state: join(progress, 'state.json'),
    events: join(progress, 'events.ndjson'),
    notes: join(progress, 'notes.md'),
    todo: join(progress, 'todo.md'),
    findings: join(progress, 'findings.md'),
    sources: join(progress, 'sources.jsonl'),
    planDir: join(progress, 'plan'),
    planCurrent: join(progress, 'plan', 'current.json'),
    planDraft: join(progress, 'plan', 'draft.json'),
    approvalRequests: join(progress, 'approvals', 'requests'),
    approvalDecisions: join(progress, 'approvals', 'decisions'),
    verifyDir: join(progress, 'verify'),
    artifacts: join(progress, 'artifacts'),
    steps: join(progress, 'steps'),
    stop: join(progress, 'STOP'),
    lock: join(progress, '.lock'),
    plan: (version) => join(progress, 'plan', `${String(version).padStart(4, '0')}.json`),
    verifyReport: (attempt) => join(progress, 'verify', `${String(attempt).padStart(4, '0')}-report.json`),
    step: (id) => join(progress, 'steps', id),
  };
}

/**
 * Checks that `root` is a task folder: a directory with a `task/` directory holding `brief.md`.
 * @throws AgencyError `task_folder_invalid` saying what is missing and how to create it.
 */
export async function checkTaskFolder(root: string): Promise<TaskPaths> {
  const paths = taskPaths(root);
  const kind = async (path: string) => (await stat(path).catch(() => undefined))?.isDirectory();
  if (!(await kind(paths.root))) {
    throw new AgencyError(
      'task_folder_invalid',
      `${paths.root} does not exist. Create a task with: agency init ${root}`,
    );
  }
  if (!(await kind(paths.task))) {
    throw new AgencyError(
      'task_folder_invalid',
      `${paths.root} is not a task folder: it has no task/ directory. Create one with: agency init ${root}`,
    );
  }
  if ((await stat(paths.brief).catch(() => undefined))?.isFile() !== true) {
    throw new AgencyError(
      'task_folder_invalid',
      `${paths.brief} is missing: write the task's goal and acceptance criteria there`,
    );
  }
  return paths;
}

/** Creates the `progress/` directories a run writes to, refusing links on the way. Never touches `task/`. */
export async function ensureProgressDirs(files: TaskFiles, paths: TaskPaths): Promise<void> {
  for (const dir of [
    paths.planDir,
    paths.approvalRequests,
    paths.approvalDecisions,
    paths.verifyDir,
    paths.artifacts,
    paths.steps,
  ]) {
    await files.ensureDir(dir);
  }
}

/** Options for {@link scaffoldTask}. */
export type ScaffoldOptions = { brief?: string };

/**
 * Creates a new task folder: `task/brief.md`, `progress/notes.md`, `progress/todo.md`. Refuses to overwrite an
 * existing brief. (`progress/state.json` is written when the run starts.)
 */
export async function scaffoldTask(root: string, { brief }: ScaffoldOptions = {}): Promise<TaskPaths> {
  const paths = taskPaths(root);
  if (await stat(paths.brief).catch(() => undefined)) {
    throw new AgencyError('task_folder_invalid', `${paths.brief} already exists; this folder is already a task`);
  }
  await mkdir(paths.task, { recursive: true });
  await mkdir(paths.progress, { recursive: true });
  await writeFile(
    paths.brief,
    brief ??
      '# Goal\n\nDescribe what the agent should produce.\n\n# Acceptance criteria\n\n- What must be true for the task to be done.\n',
    { flag: 'wx' },
  );
  await writeFile(paths.notes, '# Notes\n', { flag: 'wx' }).catch(() => {});
  await writeFile(paths.todo, '# To do\n', { flag: 'wx' }).catch(() => {});
  return paths;
}
