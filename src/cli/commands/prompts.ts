import { userInfo } from 'node:os';
import { AgencyError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import { BUILTIN_PROMPTS } from '../../prompts/builtin-prompts.ts';
import { notFound } from '../../prompts/create-prompt-store.ts';
import { checkPromptId, checkPromptVersion, MAX_PROMPT_TEXT_BYTES } from '../../prompts/prompt-checks.ts';
import { type PromptDraft, type PromptTemplate, promptRef } from '../../prompts/prompt-store.ts';
import { EXIT } from '../exit-codes.ts';
import { diffLines } from '../line-diff.ts';
import { type OpenedPromptStore, openPromptStore, type PromptStoreOptions } from '../open-prompt-store.ts';
import { readInputFile } from '../read-input-file.ts';
import type { Output } from '../render.ts';
import { auditLine, type ListedPrompt, listLines } from './prompt-lines.ts';

/** Options of `agency prompts ls` and `agency prompts audit`. */
export type PromptListOptions = PromptStoreOptions & { id?: string; json?: boolean };

/** Options of `agency prompts show`. */
export type PromptShowOptions = PromptStoreOptions & { json?: boolean };

/** Options of `agency prompts put` and `agency prompts validate`. */
export type PromptPutOptions = PromptStoreOptions & {
  /** The text's file, or `-` for standard input. */
  file: string;
  /** Who puts it. @default the OS user name */
  by?: string;
  /** The variables the text uses (`requiredVars`); by default, those it uses. */
  var?: string[];
  /** A JSON object. */
  metadata?: string;
};

/** `agency prompts ls`: the latest version of every id; with `--id`, every version of it. */
export async function promptsListCommand(options: PromptListOptions, out: Output): Promise<number> {
  if (options.id !== undefined) checkPromptId(options.id, '--id');
  return withStore(options, async ({ store }) => {
    const templates = await store.list(options.id === undefined ? {} : { id: options.id });
    if (options.json) {
      out.write(`${JSON.stringify(templates.map(listed))}\n`);
    } else if (templates.length === 0) out.write(`No versions of ${options.id}.\n`);
    else for (const line of listLines(templates.map(listed))) out.write(`${line}\n`);
    return EXIT.ok;
  });
}

/** `agency prompts show <id>[@<version>]`: the text, as it is (to pipe into a file); with `--json`, the whole version. */
export async function promptsShowCommand(ref: string, options: PromptShowOptions, out: Output): Promise<number> {
  const [id, version] = parseRef(ref, '<id>', false);
  return withStore(options, async ({ store }) => {
    const template = await found(store, id, version);
    out.write(options.json ? `${JSON.stringify({ ...template, source: sourceOf(template) })}\n` : template.text);
    return EXIT.ok;
  });
}

/** `agency prompts put <id> --file <path|->`: a new version (never over one); prints `id@version`. */
export async function promptsPutCommand(id: string, options: PromptPutOptions, out: Output): Promise<number> {
  checkPromptId(id, '<id>');
  const given = draftOptions(options);
  return withStore(
    options,
    async ({ store, writable }) => {
      if (!writable) {
        throw new AgencyError(
          'invalid_argument',
          'agency prompts put: the built-in prompts take no new versions; give the store to put to: --dir <folder> ' +
            '(a folder of prompt versions), or --store sqlite:<path> or postgres://…, or set "prompts.dir" in the operator config',
        );
      }
      const text = await readInputFile(options.file, '--file', MAX_PROMPT_TEXT_BYTES);
      const template = await store.put({ id, text, ...given, createdBy: options.by ?? osUser() });
      out.write(`${promptRef(template)}\n`);
      return EXIT.ok;
    },
    { create: true },
  );
}

/** `agency prompts validate <id> --file <path|->`: what `put` would report, storing nothing; exit 1 on problems. */
export async function promptsValidateCommand(
  id: string,
  options: PromptPutOptions,
  out: Output,
  err: Output,
): Promise<number> {
  checkPromptId(id, '<id>');
  const given = draftOptions(options);
  const text = await readInputFile(options.file, '--file', MAX_PROMPT_TEXT_BYTES);
  return withStore(options, async ({ store }) => {
    const result = await store.validate({
      id,
      text,
      ...given,
      ...(options.by === undefined ? {} : { createdBy: options.by }),
    });
    if (result.ok) {
      out.write(`ok  ${id}: uses ${result.variables.length > 0 ? result.variables.join(', ') : 'no variables'}\n`);
      return EXIT.ok;
    }
    err.write(`invalid  ${id}:\n`);
    for (const error of result.errors) err.write(`  ${error}\n`);
    return EXIT.failed;
  });
}

/** `agency prompts audit`: the audit trail, oldest first; with `--id`, that id's only. */
export async function promptsAuditCommand(options: PromptListOptions, out: Output): Promise<number> {
  if (options.id !== undefined) checkPromptId(options.id, '--id');
  return withStore(options, async ({ store, name, writable }) => {
    const entries = await store.audit(options.id === undefined ? {} : { id: options.id });
    if (options.json) out.write(`${JSON.stringify(entries)}\n`);
    else if (entries.length === 0) {
      out.write(
        writable
          ? `No audit entries in ${name} yet: each put adds one.\n`
          : 'No audit entries: the built-in prompts have none; puts to a store (--dir or --store) are audited.\n',
      );
    } else for (const entry of entries) out.write(`${auditLine(entry)}\n`);
    return EXIT.ok;
  });
}

/** `agency prompts diff <id>@<a> <id>@<b>`: the line diff of two versions' texts. */
export async function promptsDiffCommand(
  from: string,
  to: string,
  options: PromptStoreOptions,
  out: Output,
): Promise<number> {
  const [fromId, fromVersion] = parseRef(from, '<from>', true);
  const [toId, toVersion] = parseRef(to, '<to>', true);
  return withStore(options, async ({ store }) => {
    const a = await found(store, fromId, fromVersion);
    const b = await found(store, toId, toVersion);
    out.write(`--- ${promptRef(a)}\n+++ ${promptRef(b)}\n`);
    for (const line of diffLines(a.text, b.text)) out.write(`${line.op}${line.text}\n`);
    return EXIT.ok;
  });
}

async function withStore(
  options: PromptStoreOptions,
  act: (opened: OpenedPromptStore) => Promise<number>,
  open: { create?: boolean } = {},
): Promise<number> {
  const opened = await openPromptStore(options, open);
  try {
    return await act(opened);
  } finally {
    await opened.close();
  }
}

// `id` or `id@version`, checked before any store is opened: an id is a folder name of the file store.
function parseRef(ref: string, where: string, needVersion: boolean): [id: string, version: number | undefined] {
  const at = ref.lastIndexOf('@');
  const id = at < 0 ? ref : ref.slice(0, at);
  checkPromptId(id, where);
  if (at < 0) {
    if (!needVersion) return [id, undefined];
    throw new AgencyError(
      'invalid_argument',
      `${where}: "${ref.slice(0, 100)}" names no version; write <id>@<version>, e.g. runner.plan@1`,
    );
  }
  const digits = ref.slice(at + 1);
  return [id, checkPromptVersion(/^[0-9]+$/.test(digits) ? Number(digits) : Number.NaN, where)];
}

async function found(store: OpenedPromptStore['store'], id: string, version: number | undefined) {
  const template = await store.get(id, version);
  if (!template) throw notFound(id, version, await store.list({ id }));
  return template;
}

// The fields `--var` and `--metadata` give a draft, checked before anything is read or opened.
function draftOptions(options: PromptPutOptions): Pick<PromptDraft, 'requiredVars' | 'metadata'> {
  const vars = options.var ?? [];
  return {
    ...(vars.length > 0 ? { requiredVars: vars } : {}),
    ...(options.metadata === undefined ? {} : { metadata: metadataOf(options.metadata) }),
  };
}

function metadataOf(text: string): Record<string, JsonValue> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new AgencyError(
      'invalid_argument',
      `--metadata: not JSON (${(error as Error).message}); give an object, e.g. '{"note":"shorter"}'`,
    );
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AgencyError('invalid_argument', `--metadata: must be a JSON object, e.g. '{"note":"shorter"}'`);
  }
  return value as Record<string, JsonValue>;
}

// A version without its text (`show` prints that), and where it comes from.
function listed({ text: _, ...template }: PromptTemplate): ListedPrompt {
  return { ...template, source: sourceOf(template) };
}

// Where a version comes from: agency's own, or the operator's store.
function sourceOf(template: Pick<PromptTemplate, 'id' | 'version'>): 'built-in' | 'store' {
  return BUILTIN_PROMPTS.some((each) => each.id === template.id && each.version === template.version)
    ? 'built-in'
    : 'store';
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return process.env.USER || 'operator';
  }
}
