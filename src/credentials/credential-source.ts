import { readFile, stat } from 'node:fs/promises';
import { errnoCode } from '../core/errno.ts';
import { AgencyError } from '../core/errors.ts';

/** What a source is given when it loads. */
export type SourceContext = {
  /** The credential being loaded, for messages. */
  credential: string;
  /** The environment to read variables from. */
  env: Readonly<Record<string, string | undefined>>;
  warn(message: string): void;
};

/** Where a credential's value comes from. Build one with {@link env}, {@link file} or {@link callback}. */
export type CredentialSource = {
  /** How the source is named in messages, e.g. `environment variable GITHUB_TOKEN`. */
  readonly describe: string;
  /** The variable an `env` source reads; it is also the default name the value is exposed as. */
  readonly envName?: string;
  load(context: SourceContext): Promise<string>;
};

const unavailable = (
  context: SourceContext,
  problem: string,
  fix: string,
  details: Record<string, unknown>,
  cause?: unknown,
) =>
  new AgencyError('credential_unavailable', `Credential "${context.credential}": ${problem}. ${fix}`, {
    details: { credential: context.credential, ...details },
    cause,
  });

/**
 * Reads a credential from an environment variable, at the moment a tool needs it.
 *
 * @example
 * { name: 'github', tools: ['http_fetch'], from: env('GITHUB_TOKEN') }
 */
export function env(variable: string): CredentialSource {
  return {
    describe: `environment variable ${variable}`,
    envName: variable,
    async load(context) {
      const value = context.env[variable];
      if (value === undefined || value === '')
        throw unavailable(
          context,
          `environment variable ${variable} is not set`,
          `Set ${variable}, or remove the credential.`,
          {
            variable,
          },
        );
      return value;
    },
  };
}

/** Options for {@link file}. */
export type FileSourceOptions = {
  /** Refuse a file readable by group or others, instead of warning. @default false */
  strictMode?: boolean;
};

/**
 * Reads a credential from a file, trimming one trailing newline. The file should have mode 0600: a looser mode
 * works but warns, naming the file and the `chmod 600` fix (or fails, with `strictMode`).
 *
 * @example
 * { name: 'deploy-key', tools: ['sandbox_exec'], from: file('/run/secrets/deploy_key'), mount: 'file' }
 */
export function file(path: string, { strictMode = false }: FileSourceOptions = {}): CredentialSource {
  return {
    describe: `file ${path}`,
    async load(context) {
      let info;
      try {
        info = await stat(path);
      } catch (cause) {
        const missing = errnoCode(cause) === 'ENOENT';
        throw unavailable(
          context,
          missing ? `file ${path} does not exist` : `file ${path} cannot be read`,
          missing ? 'Create it with the secret as its only content, then chmod 600 it.' : 'Check its permissions.',
          { file: path },
          cause,
        );
      }
      if (!info.isFile())
        throw unavailable(context, `${path} is not a regular file`, 'Point the source at a file.', { file: path });
      const mode = info.mode & 0o777;
      if ((mode & 0o077) !== 0) {
        const problem = `file ${path} has mode 0${mode.toString(8)} and is readable by other users`;
        if (strictMode) throw unavailable(context, problem, `Run: chmod 600 ${path}`, { file: path, mode });
        context.warn(`Credential "${context.credential}": ${problem}; run: chmod 600 ${path}`);
      }
      const value = (await readFile(path, 'utf8')).replace(/\r?\n$/, '');
      if (value === '')
        throw unavailable(context, `file ${path} is empty`, 'Write the secret into it.', { file: path });
      return value;
    },
  };
}

/**
 * Gets a credential from a function, e.g. a secrets manager or Vault client. It is called each time a tool needs
 * the credential; cache inside it if the call is expensive.
 *
 * @example
 * { name: 'db', tools: ['sql'], from: callback(() => vault.read('db/password')) }
 */
export function callback(
  fn: () => string | Promise<string>,
  { label = 'callback' }: { label?: string } = {},
): CredentialSource {
  return {
    describe: label,
    async load(context) {
      let value: unknown;
      try {
        value = await fn();
      } catch (cause) {
        // The cause is kept for debugging but not quoted: a failing secrets client may echo what it was given.
        throw unavailable(context, `${label} failed`, 'See the cause for why.', { source: label }, cause);
      }
      if (typeof value !== 'string' || value === '')
        throw unavailable(context, `${label} returned no value`, 'Return the secret as a non-empty string.', {
          source: label,
        });
      return value;
    },
  };
}
