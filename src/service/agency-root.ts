import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Where a service keeps its tasks and its own files, under the data root. */
export type AgencyRoot = {
  /** The data root itself (`AGENCY_ROOT`, default `~/.agency`). */
  root: string;
  /** One task root per task: `<root>/tasks/<task_id>/`, with `task/` and `progress/` as the CLI makes them. */
  tasks: string;
  /** The server's own files: its token, session key and TLS certificate. */
  server: string;
};

/** The data root from `AGENCY_ROOT`, or `~/.agency`. */
export function agencyRoot(env: NodeJS.ProcessEnv = process.env): AgencyRoot {
  const root = resolve(env.AGENCY_ROOT || join(homedir(), '.agency'));
  return { root, tasks: join(root, 'tasks'), server: join(root, 'server') };
}

/** The data root at `root`. */
export function agencyRootAt(root: string): AgencyRoot {
  const absolute = resolve(root);
  return { root: absolute, tasks: join(absolute, 'tasks'), server: join(absolute, 'server') };
}
