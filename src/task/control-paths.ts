import { posix } from 'node:path';

/**
 * The files under `progress/` that govern a run. Only the runner writes them: a model that could write an approval
 * decision, the plan, the journal or the state could approve itself or rewrite its own paper trail.
 */
export const CONTROL_PATHS = [
  'approvals',
  'plan',
  'steps',
  'verify',
  'state.json',
  'spec.json',
  'events.ndjson',
  'STOP',
  '.lock',
] as const;

/**
 * The control path a tool argument names, or undefined. Paths are read as the path guard reads them: relative to
 * `progress/` unless they start with a root label (`progress/…` or `task/…`).
 *
 * This reads the argument's text, so it is only the tool gate's early, friendly refusal: a link planted in
 * `artifacts/` (`p -> ..`) makes `progress/artifacts/p/spec.json` name `spec.json` without this seeing it. The
 * enforcement is the path guard, which checks the real path against the writable parts of `progress/` that
 * `taskTools` gives `fs_write` (`TASK_WRITABLE_PATHS`). A custom write tool that does not go through the guard has
 * only this check.
 */
export function controlPathOf(path: string): string | undefined {
  const normal = posix.normalize(path.replaceAll('\\', '/')).replace(/^(\.\/)+/, '');
  if (normal.startsWith('task/') || normal === 'task') return undefined;
  const inProgress = normal.startsWith('progress/')
    ? normal.slice('progress/'.length)
    : normal === 'progress'
      ? ''
      : normal;
  const first = inProgress.split('/')[0] ?? '';
  return (CONTROL_PATHS as readonly string[]).includes(first) ? `progress/${first}` : undefined;
}

/** Every string argument of a call that looks like a path (`path`, `paths`, `file`, `dest`…), for the check above. */
export function pathArguments(input: unknown): string[] {
  if (typeof input !== 'object' || input === null) return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (!/path|file|dest|target|dir/i.test(key)) continue;
    if (typeof value === 'string') found.push(value);
    if (Array.isArray(value)) found.push(...value.filter((item): item is string => typeof item === 'string'));
  }
  return found;
}
