import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import type { AgencyRoot } from '../../../config/agency-root.ts';
import { directorConfigPath } from '../../../config/director-config.ts';
import { loadWorkerConfig, type WorkerConfig, workerConfigPath } from '../../../config/worker-config.ts';
import { loadManagerConfig } from './manager-config.ts';

/**
 * The config file `agency worker <name>` runs: the worker's `agents/<name>/config.yaml`, else the manager director's
 * `directors/<name>/config.yaml`.
 */
export function hostedConfigPath(root: AgencyRoot, name: string): string {
  const agent = workerConfigPath(root, name);
  if (existsSync(agent)) return agent;
  const director = directorConfigPath(root, name);
  return existsSync(director) ? director : agent;
}

/**
 * Reads the config of a daemon `agency worker` hosts: a manager director's (`type: manager`, run with executor
 * `manager`), or a worker's. Anything else is read as a worker's config, whose checks name what is wrong.
 *
 * @throws AgencyError `invalid_config` naming the file, each bad field's line, and the fix.
 */
export async function loadHostedConfig(file: string): Promise<WorkerConfig> {
  const text = await readFile(file, 'utf8').catch(() => undefined);
  let type: unknown;
  try {
    const parsed: unknown = text === undefined ? undefined : parse(text);
    type = typeof parsed === 'object' && parsed !== null ? (parsed as { type?: unknown }).type : undefined;
  } catch {
    type = undefined;
  }
  return type === 'manager' ? (await loadManagerConfig(file)).worker : loadWorkerConfig(file);
}
