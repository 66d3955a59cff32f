import { statSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { AgencyError, errorMessage } from '../core/errors.ts';
import { printableUrl } from '../core/printable-url.ts';
import { BUILTIN_PROMPTS, builtinPromptStore } from '../prompts/builtin-prompts.ts';
import { createFilePromptStore } from '../prompts/file/file-prompt-store.ts';
import { layerPromptStores } from '../prompts/layer-prompt-stores.ts';
import type { PromptStore } from '../prompts/prompt-store.ts';
import { readOperatorSettings } from './operator-config.ts';
import { checkPromptFolder } from './prompt-flags.ts';

/** Where `agency prompts` reads and puts versions: `--dir`, `--store`, else the operator config's `prompts.dir`. */
export type PromptStoreOptions = {
  /** A folder of prompt versions (the file store). */
  dir?: string;
  /** `sqlite:<path>` (relative to the working folder) or a `postgres://` URL. */
  store?: string;
  /** The operator config file. */
  config?: string;
};

/** A prompt store opened for a command: the operator's store over the built-in prompts, or the built-ins alone. */
export type OpenedPromptStore = {
  store: PromptStore;
  /** False for the built-in prompts alone, which take no put. */
  writable: boolean;
  /** The store, as it may be printed (a URL's password hidden). */
  name: string;
  close(): Promise<void>;
};

const FORMS = 'sqlite:<path> or postgres://<user>@<host>/<database>';

/**
 * Opens the store the options name, laid over the built-in prompts (its versions numbered after them). A folder that
 * does not exist is refused unless `create` (a first put makes it). Each SQL store's module is loaded only when it is
 * named, and a PostgreSQL store's failures never show the URL's password.
 * @throws AgencyError `invalid_argument` for both `--dir` and `--store`, or a store this agency cannot open.
 */
export async function openPromptStore(
  options: PromptStoreOptions,
  { create = false } = {},
): Promise<OpenedPromptStore> {
  if (options.dir !== undefined && options.store !== undefined) {
    throw new AgencyError('invalid_argument', '--dir and --store name two stores; give one of them');
  }
  if (options.store !== undefined) return openSqlStore(options.store);
  const dir = options.dir ?? (await configuredDir(options.config));
  if (dir === undefined) {
    const store = builtinPromptStore();
    return { store, writable: false, name: 'the built-in prompts', close: async () => {} };
  }
  const where = options.dir !== undefined ? '--dir' : 'prompts.dir';
  const missing = statSync(dir, { throwIfNoEntry: false }) === undefined;
  if (!(create && missing)) checkPromptFolder(dir, where, 'invalid_argument');
  const top = createFilePromptStore({ dir, after: BUILTIN_PROMPTS });
  return { store: layerPromptStores(top, builtinPromptStore()), writable: true, name: dir, close: async () => {} };
}

async function configuredDir(config: string | undefined): Promise<string | undefined> {
  const settings = await readOperatorSettings(config === undefined ? {} : { config });
  const dir = settings.prompts?.dir;
  if (dir !== undefined) checkPromptFolder(dir, `${settings.where}: prompts.dir`, 'invalid_config');
  return dir;
}

async function openSqlStore(text: string): Promise<OpenedPromptStore> {
  const shown = printableUrl(text);
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length);
    if (path === '' || path.includes('\u0000')) {
      throw new AgencyError(
        'invalid_argument',
        `--store: "${shown}" names no file; use sqlite:<path>, e.g. sqlite:./prompts.db`,
      );
    }
    const { createSqlitePromptStore } = await import('../prompts/sql/sqlite-prompt-store.ts');
    const top = createSqlitePromptStore({ path: isAbsolute(path) ? path : resolve(path), after: BUILTIN_PROMPTS });
    return {
      store: layerPromptStores(top, builtinPromptStore()),
      writable: true,
      name: text,
      close: async () => top.close(),
    };
  }
  if (/^postgres(ql)?:\/\/\S+$/i.test(text) && URL.canParse(text)) {
    const { createPostgresPromptStore } = await import('../prompts/sql/postgres-prompt-store.ts');
    const top = createPostgresPromptStore({ connectionString: text, after: BUILTIN_PROMPTS });
    const store = hidingSecrets(layerPromptStores(top, builtinPromptStore()), text);
    return { store, writable: true, name: shown, close: () => top.close() };
  }
  throw new AgencyError(
    'invalid_argument',
    `--store: "${shown}" is not a prompt store this agency knows; use ${FORMS}`,
  );
}

// The store's methods, with any failure that is not agency's own (the driver's: a refused connection, a bad
// password) rethrown naming the store as it may be printed, its message without the URL's password.
function hidingSecrets(store: PromptStore, url: string): PromptStore {
  const password = new URL(url).password;
  const secrets = [url, password, decoded(password)].filter((secret) => secret.length > 0);
  const scrub = (text: string) => secrets.reduce((clean, secret) => clean.replaceAll(secret, '***'), text);
  const wrap =
    <A extends unknown[], R>(method: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await method(...args);
      } catch (error) {
        if (AgencyError.isInstance(error)) throw error;
        // The cause is kept for a debugger; the CLI prints only this message.
        throw new Error(`PostgreSQL prompt store at ${printableUrl(url)}: ${scrub(driverMessage(error))}`, {
          cause: error,
        });
      }
    };
  return {
    get: wrap(store.get),
    render: wrap(store.render),
    put: wrap(store.put),
    list: wrap(store.list),
    validate: wrap(store.validate),
    audit: wrap(store.audit),
  };
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// A refused connection to a host with several addresses is an AggregateError with no message of its own.
function driverMessage(error: unknown): string {
  const message = errorMessage(error);
  if (message !== '' || !(error instanceof AggregateError)) return message || 'failed';
  return error.errors.map((each) => errorMessage(each)).join('; ') || 'cannot connect';
}
