import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * The data root (`AGENCY_ROOT`, default `~/.agency`) and what lives under it: the server's tasks and files, one
 * directory per fleet instance (`agents/<name>/`, `directors/<name>/`, each with its `config.yaml`), and the
 * credentials every instance reads. Each root is independent of every other, so dev, CI and production never mix.
 */
export type AgencyRoot = {
  /** The data root itself (`AGENCY_ROOT`, default `~/.agency`). */
  root: string;
  /** One task root per task: `<root>/tasks/<task_id>/`, with `task/` and `progress/` as the CLI makes them. */
  tasks: string;
  /** The server's own files: its token, session key and TLS certificate. */
  server: string;
  /** One directory per worker: `<root>/agents/<name>/` with `config.yaml`, `agent.log`, `history/`, `workspaces/`. */
  agents: string;
  /** One directory per director: `<root>/directors/<name>/` with `config.yaml`. */
  directors: string;
  /** Credential files (mode 0600), one secret each, named in the instances' configs. */
  credentials: string;
};

/** The data root from `AGENCY_ROOT`, or `~/.agency`. */
export function agencyRoot(env: NodeJS.ProcessEnv = process.env): AgencyRoot {
  return agencyRootAt(env.AGENCY_ROOT || join(homedir(), '.agency'));
}

/** The data root at `root`. */
export function agencyRootAt(root: string): AgencyRoot {
  const absolute = resolve(root);
  return {
    root: absolute,
    tasks: join(absolute, 'tasks'),
    server: join(absolute, 'server'),
    agents: join(absolute, 'agents'),
    directors: join(absolute, 'directors'),
    credentials: join(absolute, 'credentials'),
  };
}
