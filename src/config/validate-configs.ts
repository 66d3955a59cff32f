import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { errorMessage } from '../core/errors.ts';
import type { AgencyRoot } from './agency-root.ts';
import { databaseWhere } from './database-key.ts';
import { type DirectorType, loadDirectorConfigBase } from './director-config.ts';
import { loadInstanceCredentials } from './instance-credentials.ts';
import { loadWorkerConfig } from './worker-config.ts';

/**
 * Checks a director's fields beyond the base ones with its kind's own schema (a scheduler's `schedule`…); the
 * caller brings it, as the kinds live above this layer. Throws the config error.
 */
export type DirectorKindCheck = (file: string, type: DirectorType) => Promise<void>;

/** What `agency validate` found in one file. */
export type ConfigCheck = {
  file: string;
  kind: 'worker' | 'director';
  /** The problems, one per line (file, line and field in each); empty when the file is valid. */
  problems: string[];
  /** A one-line description of a valid config, e.g. `worker agent-01 on 127.0.0.1:9000, executor claude`. */
  summary?: string;
  port?: number;
};

/**
 * Checks one config file as its component would at start-up: the YAML, every field, and for a worker its
 * credential files (present, regular, mode 0600). Whether it is a worker's or a director's is read from its place
 * (`agents/<name>/` or `directors/<name>/`), else from a top-level `type` field (directors have one).
 */
export async function checkConfigFile(
  file: string,
  root: AgencyRoot,
  checkKind?: DirectorKindCheck,
): Promise<ConfigCheck> {
  const absolute = resolve(file);
  const kind = await kindOf(absolute);
  try {
    if (kind === 'director') {
      const config = await loadDirectorConfigBase(absolute);
      await checkKind?.(absolute, config.type);
      return {
        file: absolute,
        kind,
        problems: [],
        summary: `director ${config.name} (${config.type})${config.port ? ` on port ${config.port}` : ''}`,
        ...(config.port ? { port: config.port } : {}),
      };
    }
    const config = await loadWorkerConfig(absolute);
    await loadInstanceCredentials(root, config.credentials, absolute, { logger: { warn() {} } });
    return {
      file: absolute,
      kind,
      problems: [],
      summary:
        `worker ${config.name} on ${config.bind}:${config.port}, executor ${config.executor}` +
        (config.labels.length > 0 ? `, labels ${config.labels.join(',')}` : '') +
        (config.database ? `, fleet database ${databaseWhere(config.database)}` : ''),
      port: config.port,
    };
  } catch (error) {
    return { file: absolute, kind, problems: errorMessage(error).split('\n') };
  }
}

/** Checks every `agents/*\/config.yaml` and `directors/*\/config.yaml` under the data root, and that no two share a port. */
export async function checkAllConfigs(root: AgencyRoot, checkKind?: DirectorKindCheck): Promise<ConfigCheck[]> {
  const files = [...(await configsUnder(root.agents)), ...(await configsUnder(root.directors))];
  const checks = await Promise.all(files.map((file) => checkConfigFile(file, root, checkKind)));
  const byPort = new Map<number, ConfigCheck>();
  for (const check of checks) {
    if (check.port === undefined) continue;
    const other = byPort.get(check.port);
    if (other)
      check.problems.push(`${check.file}: port: ${check.port} is also the port of ${other.file}; give each its own`);
    else byPort.set(check.port, check);
  }
  return checks;
}

async function configsUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(dir, entry.name, 'config.yaml'))
    .sort();
}

async function kindOf(file: string): Promise<'worker' | 'director'> {
  const parent = basename(dirname(dirname(file)));
  if (parent === 'agents') return 'worker';
  if (parent === 'directors') return 'director';
  const text = await readFile(file, 'utf8').catch(() => '');
  try {
    return parseDocument(text).has('type') ? 'director' : 'worker';
  } catch {
    return 'worker';
  }
}
