import { AgencyError } from '../core/errors.ts';
import { checkDraft, checkPromptId, checkPromptVersion, promptDigest } from './prompt-checks.ts';
import type { PromptAuditEntry, PromptStore, PromptTemplate } from './prompt-store.ts';
import { renderPrompt } from './render-prompt.ts';

/** A new version and its audit entry, made from the version before it. */
export type NextVersion = { template: PromptTemplate; audit: PromptAuditEntry };

/**
 * Where a store keeps its versions: the small port each store implements. `createPromptStore` builds the whole
 * `PromptStore` over it, so checks, rendering and audit entries are the same in every store.
 */
export type PromptRecords = {
  /** A version, or the latest version, of an id already checked. */
  read(id: string, version?: number): Promise<PromptTemplate | undefined>;
  /** The latest version of every id, by id; with `id`, its every version, oldest first. */
  list(id?: string): Promise<PromptTemplate[]>;
  /**
   * Writes the next version of `id` and its audit entry, atomically: `next` is called with the latest version (read
   * under the store's lock, or retried when another writer got there first) and returns what to write. A version
   * that exists is never written over.
   */
  append(id: string, next: (latest: PromptTemplate | undefined) => NextVersion): Promise<PromptTemplate>;
  /** The audit trail, oldest first; with `id`, that id's only. */
  audit(id?: string): Promise<PromptAuditEntry[]>;
};

/** Options for {@link createPromptStore}. */
export type PromptStoreDeps = {
  /** The clock of `createdAt` and audit times. @default Date.now */
  now?: () => number;
  /**
   * Versions that exist below this store (e.g. `BUILTIN_PROMPTS`, when the store overrides agency's prompts): the
   * store's first version of one of their ids is numbered after them, and its audit entry names the one it follows.
   * @default []
   */
  after?: readonly PromptTemplate[];
};

/**
 * The `PromptStore` over a store's records: ids and versions are checked before they reach the records, drafts are
 * validated before they are put, and each put's audit entry is made here.
 */
export function createPromptStore(
  records: PromptRecords,
  { now = Date.now, after = [] }: PromptStoreDeps = {},
): PromptStore {
  const floor = (id: string) =>
    after.reduce<PromptTemplate | undefined>(
      (best, template) => (template.id === id && (!best || template.version > best.version) ? template : best),
      undefined,
    );
  const get = async (id: string, version?: number) => {
    checkPromptId(id);
    if (version !== undefined) checkPromptVersion(version);
    return records.read(id, version);
  };
  return {
    get,
    async render(id, vars, version) {
      const template = await get(id, version);
      if (!template) throw notFound(id, version, await records.list(id));
      return renderPrompt(template, vars);
    },
    async put(draft) {
      const checked = checkDraft(draft);
      if (!checked.template) {
        throw new AgencyError(
          'prompt_invalid',
          `Prompt ${JSON.stringify(draft?.id)} cannot be put:\n${checked.validation.errors.map((error) => `- ${error}`).join('\n')}`,
          { details: { id: draft?.id, errors: checked.validation.errors } },
        );
      }
      const base = checked.template;
      const below = floor(base.id);
      return records.append(base.id, (latest) => nextVersion(latest ?? below, base, new Date(now()).toISOString()));
    },
    async list(filter = {}) {
      if (filter.id !== undefined) checkPromptId(filter.id);
      return records.list(filter.id);
    },
    async validate(draft) {
      return checkDraft(draft, { needAuthor: false }).validation;
    },
    async audit(filter = {}) {
      if (filter.id !== undefined) checkPromptId(filter.id);
      return records.audit(filter.id);
    },
  };
}

/** The version after `latest` and its audit entry. */
export function nextVersion(
  latest: PromptTemplate | undefined,
  base: Omit<PromptTemplate, 'version' | 'createdAt'>,
  at: string,
): NextVersion {
  const template: PromptTemplate = { ...base, version: (latest?.version ?? 0) + 1, createdAt: at };
  const fields = ['text', 'requiredVars', 'engine', 'metadata'] as const;
  const changed = latest
    ? fields.filter((field) => JSON.stringify(latest[field]) !== JSON.stringify(template[field]))
    : [...fields];
  const audit: PromptAuditEntry = {
    id: template.id,
    version: template.version,
    action: 'put',
    by: template.createdBy,
    at,
    sha256: promptDigest(template),
    previous: latest ? { version: latest.version, sha256: promptDigest(latest) } : null,
    changed,
  };
  return { template, audit };
}

/** `prompt_not_found` for a render, naming the versions there are. */
export function notFound(id: string, version: number | undefined, versions: readonly PromptTemplate[]): AgencyError {
  const have = versions.map((template) => template.version);
  return new AgencyError(
    'prompt_not_found',
    version === undefined
      ? `No prompt "${id}" in the store; put one first`
      : `Prompt "${id}" has no version ${version}` +
          (have.length > 0 ? ` (it has ${have.join(', ')})` : ' (it has none)'),
    { details: { id, version: version ?? null, versions: have } },
  );
}
