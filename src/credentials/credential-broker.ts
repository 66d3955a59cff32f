import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import { defaultRedactor, MIN_SECRET_LENGTH, type Redactor } from '../core/redact.ts';
import type { CredentialSource } from './credential-source.ts';
import { mountDirPrefix, removeOrphanedMounts } from './orphaned-mounts.ts';

/** One credential: where it comes from, which tools may have it, and how they receive it. */
export type CredentialSpec = {
  /** Letters, digits, `_`, `-` and `.`; unique within a broker. */
  name: string;
  /** The exact names of the tools that receive it. No globs: credential scopes are spelled out. */
  tools: readonly string[];
  from: CredentialSource;
  /** `env`: the value itself; `file`: a 0600 temp file, deleted after the call, whose path is given. @default 'env' */
  mount?: 'env' | 'file';
  /**
   * The variable the tool sees: the value for `env` mounts, the file's path for `file` mounts.
   * @default the `env()` source's variable, else the name upper-cased (plus `_FILE` for file mounts)
   */
  envName?: string;
};

/** The credentials of one tool call. They are cleared, and temp files deleted, by `dispose`. */
export type ToolCredentials = {
  /** Variables to give the tool (for a process, merge them into its environment). */
  readonly env: Readonly<Record<string, string>>;
  /** Temp file paths of `file`-mounted credentials, by credential name. */
  readonly files: Readonly<Record<string, string>>;
  /** One credential's value. @throws AgencyError `credential_unavailable` outside the scope or after dispose. */
  get(name: string): string;
  /** Deletes the temp files and forgets the values. Safe to call twice; never rejects. */
  dispose(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
};

/** Hands tools their credentials, and nothing else, for the duration of a call. */
export type CredentialBroker = {
  /** The names of the credentials a tool receives. */
  scopeOf(toolName: string): string[];
  /** Loads a tool's credentials; the caller must `dispose` them when the call ends. */
  credentialsFor(toolName: string): Promise<ToolCredentials>;
  /** Runs `fn` with a tool's credentials and disposes of them after, however `fn` ends. */
  withCredentials<T>(toolName: string, fn: (credentials: ToolCredentials) => T | Promise<T>): Promise<T>;
  /** Loads every credential once so the redactor knows every value before any tool runs. */
  preload(): Promise<void>;
};

/** Options for {@link createCredentialBroker}. */
export type CredentialBrokerOptions = {
  sources: readonly CredentialSpec[];
  /** Every loaded value is registered here. @default defaultRedactor */
  redactor?: Redactor;
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where file mounts are created, each call in its own 0700 directory. @default os.tmpdir() */
  tmpDir?: string;
  /** Receives warnings (loose file modes, values too short to redact). @default process.emitWarning */
  logger?: { warn(message: string): void };
};

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Creates a credential broker. Values are loaded when a tool asks for them (so rotation needs no restart), registered
 * with the redactor, and given to that tool only: as variables, or as temp files deleted when the call ends.
 *
 * @throws AgencyError `invalid_config` naming the bad `sources[i]` field.
 * @example
 * const broker = createCredentialBroker({
 *   sources: [
 *     { name: 'github', tools: ['http_fetch'], from: env('GITHUB_TOKEN') },
 *     { name: 'deploy-key', tools: ['sandbox_exec'], from: file('/run/secrets/deploy_key'), mount: 'file' },
 *   ],
 * });
 * const fetchTool = wrapToolWithCredentials(httpFetch, broker);
 */
export function createCredentialBroker({
  sources,
  redactor = defaultRedactor,
  env = process.env,
  tmpDir = tmpdir(),
  logger = { warn: (message: string) => process.emitWarning(message, { code: 'AGENCY_CREDENTIAL' }) },
}: CredentialBrokerOptions): CredentialBroker {
  const specs = sources.map((spec, index) => validate(spec, index, sources));
  const scope = (toolName: string) => specs.filter((spec) => spec.tools.includes(toolName));
  const warn = (message: string) => logger.warn(message);
  let swept: Promise<void> | undefined;
  // Before this broker's first file mount: the directories of holders killed before they could clean up.
  const sweepOnce = () =>
    (swept ??= removeOrphanedMounts(tmpDir).then(
      (removed) => {
        if (removed.length > 0)
          warn(
            `Removed ${removed.length} credential mount(s) left in ${tmpDir} by killed processes: ${removed.join(', ')}`,
          );
      },
      (error: unknown) => warn(`Could not sweep old credential mounts in ${tmpDir}: ${String(error)}`),
    ));

  const load = async (spec: CredentialSpec): Promise<string> => {
    const value = await spec.from.load({ credential: spec.name, env, warn });
    if (value.length < MIN_SECRET_LENGTH)
      warn(
        `Credential "${spec.name}" is shorter than ${MIN_SECRET_LENGTH} characters, so it cannot be redacted from logs`,
      );
    redactor.register(value);
    return value;
  };

  const credentialsFor = async (toolName: string): Promise<ToolCredentials> => {
    const values = new Map<string, string>();
    const variables: Record<string, string> = {};
    const files: Record<string, string> = {};
    let dir: string | undefined;
    const credentials = mountedCredentials(toolName, values, variables, files, () => dir);
    try {
      for (const spec of scope(toolName)) {
        const value = await load(spec);
        values.set(spec.name, value);
        if (spec.mount !== 'file') {
          variables[envNameOf(spec)] = value;
          continue;
        }
        await sweepOnce();
        dir ??= await mkdtemp(join(tmpDir, mountDirPrefix()));
        const path = join(dir, spec.name);
        await writeFile(path, value, { mode: 0o600, flag: 'wx' });
        files[spec.name] = path;
        variables[envNameOf(spec)] = path;
      }
    } catch (error) {
      await credentials.dispose();
      throw error;
    }
    return credentials;
  };

  return {
    scopeOf: (toolName) => scope(toolName).map((spec) => spec.name),
    credentialsFor,
    async withCredentials(toolName, fn) {
      const credentials = await credentialsFor(toolName);
      try {
        return await fn(credentials);
      } finally {
        await credentials.dispose();
      }
    },
    async preload() {
      for (const spec of specs) await load(spec);
    },
  };
}

function mountedCredentials(
  toolName: string,
  values: Map<string, string>,
  variables: Record<string, string>,
  files: Record<string, string>,
  dirOf: () => string | undefined,
): ToolCredentials {
  let disposed = false;
  const dispose = async () => {
    disposed = true;
    values.clear();
    for (const key of Object.keys(variables)) delete variables[key];
    for (const key of Object.keys(files)) delete files[key];
    const dir = dirOf();
    // force: a second dispose, or a directory already removed, is not an error.
    if (dir !== undefined) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  };
  return {
    env: variables,
    files,
    get(name) {
      const value = values.get(name);
      if (value !== undefined) return value;
      throw new AgencyError(
        'credential_unavailable',
        disposed
          ? `Credential "${name}" is available only while tool "${toolName}" runs`
          : `Credential "${name}" is not in the scope of tool "${toolName}"; add "${toolName}" to its "tools"`,
        { details: { credential: name, tool: toolName } },
      );
    },
    dispose,
    [Symbol.asyncDispose]: dispose,
  };
}

function envNameOf(spec: CredentialSpec): string {
  if (spec.envName !== undefined) return spec.envName;
  const base = spec.from.envName ?? spec.name.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
  return spec.mount === 'file' ? `${base}_FILE` : base;
}

function validate(spec: CredentialSpec, index: number, all: readonly CredentialSpec[]): CredentialSpec {
  const fail = (field: string, problem: string): never => {
    throw new AgencyError('invalid_config', `Credential sources[${index}].${field} ${problem}`, {
      details: { field: `sources[${index}].${field}` },
    });
  };
  if (typeof spec?.name !== 'string' || !NAME.test(spec.name))
    fail('name', 'must be 1-64 letters, digits, "_", "-" or "."');
  if (all.findIndex((other) => other.name === spec.name) !== index) fail('name', `"${spec.name}" is used twice`);
  if (
    !Array.isArray(spec.tools) ||
    spec.tools.length === 0 ||
    !spec.tools.every((tool) => typeof tool === 'string' && tool !== '')
  )
    fail('tools', 'must list at least one tool name, e.g. ["http_fetch"]');
  if (typeof spec.from?.load !== 'function') fail('from', 'must be env("VAR"), file("/path") or callback(fn)');
  if (spec.mount !== undefined && spec.mount !== 'env' && spec.mount !== 'file')
    fail('mount', 'must be "env" or "file"');
  if (spec.envName !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(spec.envName))
    fail('envName', 'must be a variable name such as GITHUB_TOKEN');
  return spec;
}
