import type { JsonValue } from '../core/messages.ts';
import type { PromptValue } from './mustache-engine.ts';

/** The template engines a prompt may name. Only `mustache` exists; the field leaves room for others. */
export const PROMPT_ENGINES = ['mustache'] as const;

/** One of {@link PROMPT_ENGINES}. */
export type PromptEngine = (typeof PROMPT_ENGINES)[number];

/** One version of a prompt template, as a store holds it. Versions are never changed once written. */
export type PromptTemplate = {
  /** Lowercase letters and digits, with `.`, `_` or `-` between them, e.g. `runner.plan`. */
  id: string;
  /** 1, 2, 3 … per id, in the order the versions were put. */
  version: number;
  text: string;
  /** The variables the text uses; rendering without one of them fails. */
  requiredVars: string[];
  engine: PromptEngine;
  metadata: Record<string, JsonValue>;
  /** Who put this version. */
  createdBy: string;
  /** When it was put, ISO 8601 UTC. */
  createdAt: string;
};

/** What `put` takes: a template without its version and time, which the store gives it. */
export type PromptDraft = {
  id: string;
  text: string;
  /** @default the variables the text uses */
  requiredVars?: readonly string[];
  /** @default 'mustache' */
  engine?: string;
  /** @default {} */
  metadata?: Record<string, JsonValue>;
  /** Who is putting it: a person or a process, recorded in the version and its audit entry. */
  createdBy: string;
};

/** The variables of a render, by name. Variables the template does not use are ignored. */
export type PromptVars = Readonly<Record<string, PromptValue>>;

/** A rendered template, with what it was rendered from. */
export type RenderedPrompt = {
  text: string;
  id: string;
  version: number;
  /** `id@version`, as journals and cassettes name it. */
  ref: string;
};

/** The outcome of `validate`: every problem found, each naming its field. */
export type PromptValidation = { ok: boolean; errors: string[]; variables: string[] };

/** One change to a store: a version put, who put it and when, and what changed against the version before. */
export type PromptAuditEntry = {
  id: string;
  version: number;
  action: 'put';
  by: string;
  at: string;
  /** `promptDigest` of this version. */
  sha256: string;
  /** The version it follows, and its digest; null for a first version. */
  previous: { version: number; sha256: string } | null;
  /** The fields that differ from the previous version (every field for a first version). */
  changed: Array<'text' | 'requiredVars' | 'engine' | 'metadata'>;
};

/**
 * Versioned prompt templates (DESIGN §5). `put` adds a version and never overwrites one: versions of an id count
 * 1, 2, 3 … and concurrent puts get different versions. Every put is audited.
 *
 * @example
 * const store = createInMemoryPromptStore();
 * await store.put({ id: 'greet', text: 'Hello {{name}}', createdBy: 'alice' });
 * (await store.render('greet', { name: 'Ada' })).text; // 'Hello Ada'
 */
export type PromptStore = {
  /** A version of a template, or its latest version; undefined when there is none. */
  get(id: string, version?: number): Promise<PromptTemplate | undefined>;
  /**
   * Renders a version (default: the latest) with `vars`.
   * @throws AgencyError `prompt_not_found`; `prompt_variable_missing` naming the variable and the template.
   */
  render(id: string, vars: PromptVars, version?: number): Promise<RenderedPrompt>;
  /**
   * Adds the next version of `draft.id`, after validating it.
   * @throws AgencyError `prompt_invalid` listing every problem.
   */
  put(draft: PromptDraft): Promise<PromptTemplate>;
  /** The latest version of every template, by id; with `id`, every version of that template, oldest first. */
  list(filter?: { id?: string }): Promise<PromptTemplate[]>;
  /** Checks a draft without storing it: its id, syntax, engine, and declared against used variables. */
  validate(draft: Omit<PromptDraft, 'createdBy'> & { createdBy?: string }): Promise<PromptValidation>;
  /** The audit trail, oldest first; with `id`, that template's only. */
  audit(filter?: { id?: string }): Promise<PromptAuditEntry[]>;
};

/** `id@version`: how journals, cassettes and the CLI name one version of a template. */
export function promptRef(template: { id: string; version: number }): string {
  return `${template.id}@${template.version}`;
}
