import { AgencyError } from '../../core/errors.ts';
import type { WorkerConfig } from '../../config/worker-config.ts';
import { isSensitiveKey, type Redactor } from '../../core/redact.ts';

// Variables a task may not set: what the worker sets itself, and hooks that make an interpreter or the dynamic
// loader run code of the caller's choosing in the process that sets up the sandbox.
const RESERVED =
  /^(HOME|PATH|LD_\w*|DYLD_\w*|NODE_OPTIONS|NODE_PATH|BASH_ENV|ENV|PYTHONSTARTUP|PYTHONPATH|PERL5OPT|PERL5LIB|RUBYOPT|GIT_SSH_COMMAND|GIT_EXEC_PATH|GIT_CONFIG_\w*)$/;

// Variables that decide where a program connects or which servers it trusts: an API's base URL or host, a proxy, a
// CA file, TLS checks off. From a task they would send what the executor authenticates with (its API key, a token) to
// a server of the task's choosing, so only the worker's config may set them.
const CONNECTION =
  /(URL|URI|HOST|HOSTNAME|ENDPOINT|PROXY|ADDR|ADDRESS|SERVER|REGISTRY)$|^(NODE_TLS_REJECT_UNAUTHORIZED|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|\w*CA_BUNDLE|\w*CAINFO|\w*SSL_NO_VERIFY)$/;

// Passed on from the worker's own environment: where programs are, and the locale and time zone.
const INHERITED = ['PATH', 'LANG', 'LC_ALL', 'TZ'] as const;

/**
 * Checks a task's `env` before it runs: a credential's variable, a variable the config's `env` sets, one the worker
 * sets (`HOME`, `PATH`), a loader/interpreter hook (`LD_PRELOAD`, `NODE_OPTIONS`…) or one that steers where the
 * executor connects or whom it trusts (`ANTHROPIC_BASE_URL`, `HTTPS_PROXY`, `NODE_TLS_REJECT_UNAUTHORIZED`…) is
 * refused, naming the field. A value under a secret-looking name (`…_TOKEN`, `…_KEY`, `PASSWORD`…) is registered with
 * the redactor, so it is never logged or kept in history.
 *
 * @throws AgencyError `invalid_argument` with `details.field` `env.<NAME>`.
 */
export function checkTaskEnv(
  env: Readonly<Record<string, string>>,
  config: Pick<WorkerConfig, 'credentials' | 'env'>,
  redactor: Redactor,
): void {
  const credentialVariables = new Set(Object.values(config.credentials));
  for (const [name, value] of Object.entries(env)) {
    const why = credentialVariables.has(name)
      ? "is a credential's variable; credentials come from the worker's own files, never from a request"
      : Object.hasOwn(config.env, name)
        ? "is set by the worker's config (env); a task cannot replace it"
        : RESERVED.test(name)
          ? 'is set by the worker, or would run code outside the sandbox; it cannot be set per task'
          : CONNECTION.test(name)
            ? "decides where the executor connects or which servers it trusts, so a task could send the worker's " +
              "credentials elsewhere; set it in the worker's config (env) instead"
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
