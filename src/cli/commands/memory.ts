import { AgencyError } from '../../core/errors.ts';
import { oneLine } from '../../memory/entry-text.ts';
import { type MemoryQuery, type MemoryScope, parseScope, type StoredMemoryEntry } from '../../memory/memory-store.ts';
import { parseMemoryStoreUrl } from '../memory-store-url.ts';
import { openMemoryStoreUrl, type OpenedMemoryStore } from '../open-memory-store.ts';
import { readOperatorSettings } from '../operator-config.ts';
import type { Output } from '../render.ts';

/** Options of `agency memory ls` and `agency memory search`. */
export type MemoryListOptions = {
  /** The store, `sqlite:<path>`, `postgres://…`, `redis://…` or `zep://…`; else the operator config's `memory.store`. */
  store?: string;
  config?: string;
  /** `kind:id` scopes to look in; every scope of the store when none. */
  scope?: string[];
  kind?: string[];
  tag?: string[];
  key?: string[];
  limit?: number;
  json?: boolean;
};

/** Options of `agency memory rm`. */
export type MemoryRemoveOptions = Pick<MemoryListOptions, 'store' | 'config' | 'json'>;

/** `agency memory ls`: the entries of a store, newest first. */
export function memoryListCommand(options: MemoryListOptions, out: Output): Promise<number> {
  return memoryQueryCommand(undefined, options, out);
}

/** `agency memory search <text>`: the entries that match `text`, most relevant first. */
export async function memoryQueryCommand(
  text: string | undefined,
  options: MemoryListOptions,
  out: Output,
): Promise<number> {
  const opened = await openStore(options);
  try {
    const scopes = options.scope?.length
      ? options.scope.map((text) => scopeArgument(text, '--scope'))
      : await opened.scopes();
    const query: MemoryQuery = {
      topK: options.limit ?? 50,
      ...(text === undefined ? {} : { text }),
      ...(options.kind?.length ? { kinds: options.kind } : {}),
      ...(options.tag?.length ? { tags: options.tag } : {}),
      ...(options.key?.length ? { keys: options.key } : {}),
    };
    const entries = await opened.store.query(scopes, query);
    if (options.json) out.write(`${JSON.stringify(entries)}\n`);
    else if (entries.length === 0) out.write(`No entries in ${scopes.length} scope(s).\n`);
    else for (const entry of entries) out.write(`${entryLine(entry)}\n`);
    return 0;
  } finally {
    await opened.close();
  }
}

/** `agency memory rm <scope> <id>`: deletes one entry; exit 1 when it was not there. */
export async function memoryRemoveCommand(
  scope: string,
  id: string,
  options: MemoryRemoveOptions,
  out: Output,
): Promise<number> {
  const opened = await openStore(options);
  try {
    const deleted = await opened.store.delete(scopeArgument(scope, '<scope>'), id);
    if (options.json) out.write(`${JSON.stringify({ deleted })}\n`);
    else out.write(deleted ? `Deleted ${id} from ${scope}.\n` : `No entry ${id} in ${scope}.\n`);
    return deleted ? 0 : 1;
  } finally {
    await opened.close();
  }
}

async function openStore(options: MemoryRemoveOptions): Promise<OpenedMemoryStore> {
  if (options.store !== undefined)
    return openMemoryStoreUrl(parseMemoryStoreUrl(options.store, '--store', process.cwd()));
  const settings = await readOperatorSettings(options.config === undefined ? {} : { config: options.config });
  if (settings.memory === undefined) {
    throw new AgencyError(
      'invalid_config',
      `No memory store: pass --store sqlite:<path>, or set "memory.store" in ${settings.where}`,
    );
  }
  return openMemoryStoreUrl(settings.memory.url);
}

function scopeArgument(text: string, where: string): MemoryScope {
  try {
    return parseScope(text);
  } catch (error) {
    throw new AgencyError('invalid_argument', `${where}: ${(error as Error).message}`);
  }
}

// One line per entry: scope, id, kind, key, then the title and text on one line, cut to fit a terminal.
function entryLine(entry: StoredMemoryEntry): string {
  const scope = `${entry.scope.kind}:${entry.scope.id}`;
  const label = entry.key === undefined ? '' : ` [${entry.key}]`;
  const body = oneLine(`${entry.title === undefined ? '' : `${entry.title}: `}${entry.text}`);
  const shown = body.length > 100 ? `${body.slice(0, 99)}…` : body;
  return `${entry.metadata.createdAt}  ${scope}  ${entry.id}  ${entry.kind}${label}  ${JSON.stringify(shown)}`;
}
