import { AgencyError } from '../../core/errors.ts';
import { isSensitiveKey, type Redactor } from '../../core/redact.ts';

// Variables a task may not set: what the worker sets itself, and hooks that make an interpreter or the dynamic
// loader run code of the caller's choosing in the process that sets up the sandbox.
const RESERVED =
  /^(HOME|PATH|LD_\w*|DYLD_\w*|NODE_OPTIONS|NODE_PATH|BASH_ENV|ENV|PYTHONSTARTUP|PYTHONPATH|PERL5OPT|PERL5LIB|RUBYOPT|GIT_SSH_COMMAND|GIT_EXEC_PATH|GIT_CONFIG_\w*)$/;

// Passed on from the worker's own environment: where programs are, and the locale and time zone.
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'TZ'] as const;

/**
 * Checks a task's `env` before it runs: a credential's variable, a variable the worker sets (`HOME`, `PATH`) or a
 * loader/interpreter hook (`LD_PRELOAD`, `NODE_OPTIONS`…) is refused, naming the field. A value under a secret-looking
 * name (`…_TOKEN`, `…_KEY`, `PASSWORD`…) is registered with the redactor, so it is never logged or kept in history.
 *
 * @throws AgencyError `invalid_argument` with `details.field` `env.<NAME>`.
 */
export function checkTaskEnv(
  env: Readonly<Record<string, string>>,
  credentialVariables: ReadonlySet<string>,
  redactor: Redactor,
): void {
  for (const [name, value] of Object.entries(env)) {
    const why = credentialVariables.has(name)
      ? "is a credential's variable; credentials come from the worker's own files, never from a request"
      : RESERVED.test(name)
        ? 'is set by the worker, or would run code outside the sandbox; it cannot be set per task'
        : undefined;
    if (why) throw new AgencyError('invalid_argument', `env.${name}: ${why}`, { details: { field: `env.${name}` } });
    if (isSensitiveKey(name)) redactor.register(value);
  }
}

/**
 * The whole environment of an executor's process, and nothing else of the worker's: `PATH`, the locale and time zone
 * from the worker, `HOME`, then the config's `env`, the task's `env`, and the credentials (which nothing overrides).
 */
export function executorEnv({
  hostEnv,
  home,
  configEnv,
  taskEnv,
  credentials,
}: {
  hostEnv: Readonly<Record<string, string | undefined>>;
  home: string;
  configEnv: Readonly<Record<string, string>>;
  taskEnv: Readonly<Record<string, string>>;
  credentials: Readonly<Record<string, string>>;
}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = hostEnv[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return { ...env, HOME: home, ...configEnv, ...taskEnv, ...credentials };
}
