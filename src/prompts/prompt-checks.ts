import { canonicalDigest, canonicalJson } from '../core/canonical-json.ts';
import { AgencyError } from '../core/errors.ts';
import type { JsonValue } from '../core/messages.ts';
import { parseTemplate, type TemplateToken, variablesOf } from './mustache-engine.ts';
import {
  PROMPT_ENGINES,
  type PromptDraft,
  type PromptEngine,
  type PromptTemplate,
  type PromptValidation,
} from './prompt-store.ts';

/** A prompt id: lowercase letters and digits, with single `.`, `_` or `-` between them; at most 64 characters. */
export const PROMPT_ID = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
/** The largest template text, in UTF-8 bytes. */
export const MAX_PROMPT_TEXT_BYTES = 256 * 1024;
/** The largest `metadata`, as JSON. */
export const MAX_PROMPT_METADATA_BYTES = 16 * 1024;
const MAX_ID_LENGTH = 64;
const MAX_VERSION = 1_000_000_000;
const MAX_AUTHOR_LENGTH = 200;

/**
 * Refuses an id that is not a prompt id: it names a folder of the file store and a key of the SQL ones, so `..`,
 * slashes, capitals and control characters never reach them.
 * @throws AgencyError `invalid_argument` naming the id and the rule.
 */
export function checkPromptId(id: unknown, field = 'id'): string {
  const problem = idProblem(id);
  if (problem) throw new AgencyError('invalid_argument', `${field}: ${problem}`, { details: { field } });
  return id as string;
}

/** @throws AgencyError `invalid_argument` unless `version` is a positive integer. */
export function checkPromptVersion(version: unknown, field = 'version'): number {
  if (!Number.isSafeInteger(version) || (version as number) < 1 || (version as number) > MAX_VERSION) {
    throw new AgencyError('invalid_argument', `${field}: ${String(version)} is not a version (1, 2, 3 …)`, {
      details: { field },
    });
  }
  return version as number;
}

function idProblem(id: unknown): string | undefined {
  if (typeof id !== 'string') return `must be a string, not ${id === null ? 'null' : typeof id}`;
  if (id.length === 0 || id.length > MAX_ID_LENGTH || !PROMPT_ID.test(id)) {
    return (
      `${JSON.stringify(id.slice(0, 80))} is not a prompt id: use lowercase letters and digits, with single ".", "_" ` +
      `or "-" between them, at most ${MAX_ID_LENGTH} characters (e.g. "runner.plan")`
    );
  }
  return undefined;
}

/** A draft checked and given its defaults, or every problem found. */
export type CheckedDraft = {
  validation: PromptValidation;
  template?: Omit<PromptTemplate, 'version' | 'createdAt'>;
};

/** Checks a draft's id, text, variables, engine, metadata and author. */
export function checkDraft(draft: Partial<PromptDraft>, { needAuthor = true } = {}): CheckedDraft {
  const errors: string[] = [];
  const id = idProblem(draft.id);
  if (id) errors.push(`id: ${id}`);
  const text = textProblems(draft.text);
  errors.push(...text.errors);
  const variables = text.tokens ? variablesOf(text.tokens) : [];
  const requiredVars = draft.requiredVars === undefined ? variables : [...draft.requiredVars];
  if (text.tokens) errors.push(...variableProblems(requiredVars, variables));
  const engine = draft.engine ?? 'mustache';
  if (!(PROMPT_ENGINES as readonly string[]).includes(engine)) {
    errors.push(
      `engine: ${JSON.stringify(engine)} is not a template engine agency has; use ${PROMPT_ENGINES.join(', ')}`,
    );
  }
  const metadata = draft.metadata ?? {};
  errors.push(...metadataProblems(metadata));
  const author = authorProblem(draft.createdBy);
  if (author && (needAuthor || draft.createdBy !== undefined)) errors.push(`createdBy: ${author}`);
  const validation = { ok: errors.length === 0, errors, variables };
  if (errors.length > 0) return { validation };
  return {
    validation,
    template: {
      id: draft.id as string,
      text: draft.text as string,
      requiredVars,
      engine: engine as PromptEngine,
      metadata,
      createdBy: draft.createdBy as string,
    },
  };
}

function textProblems(text: unknown): { errors: string[]; tokens?: TemplateToken[] } {
  if (typeof text !== 'string') return { errors: [`text: must be a string, not ${typeof text}`] };
  if (!text.isWellFormed()) return { errors: ['text: holds a lone UTF-16 surrogate; it must be valid Unicode'] };
  if (text.includes('\0')) return { errors: ['text: holds a NUL character'] };
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > MAX_PROMPT_TEXT_BYTES) {
    return { errors: [`text: ${bytes} bytes is over the ${MAX_PROMPT_TEXT_BYTES}-byte limit of a template`] };
  }
  const parsed = parseTemplate(text);
  if ('error' in parsed) {
    const { line, column, message } = parsed.error;
    return { errors: [`text line ${line}, column ${column}: ${message}`] };
  }
  return { errors: [], tokens: parsed.tokens };
}

function variableProblems(declared: readonly unknown[], used: readonly string[]): string[] {
  const errors: string[] = [];
  if (declared.some((name) => typeof name !== 'string')) return ['requiredVars: must be a list of variable names'];
  const names = declared as string[];
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) errors.push(`requiredVars: "${name}" is listed twice`);
    seen.add(name);
    if (!used.includes(name)) errors.push(`requiredVars: "${name}" is declared but the text does not use it`);
  }
  for (const name of used) {
    if (!seen.has(name)) errors.push(`requiredVars: the text uses "${name}", which is not declared; add it`);
  }
  return errors;
}

function metadataProblems(metadata: unknown): string[] {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    return ['metadata: must be a JSON object'];
  }
  let json: string;
  try {
    json = canonicalJson(metadata);
  } catch (error) {
    return [`metadata: is not JSON (${(error as Error).message})`];
  }
  const bytes = new TextEncoder().encode(json).byteLength;
  return bytes > MAX_PROMPT_METADATA_BYTES
    ? [`metadata: ${bytes} bytes of JSON is over the ${MAX_PROMPT_METADATA_BYTES}-byte limit`]
    : [];
}

function authorProblem(author: unknown): string | undefined {
  if (typeof author !== 'string' || author.trim() === '') return 'must name who puts the version, e.g. "alice"';

  if (author.length > MAX_AUTHOR_LENGTH || /[\u0000-\u001f\u007f]/.test(author) || !author.isWellFormed())
    return `must be one line of at most ${MAX_AUTHOR_LENGTH} characters`;
  return undefined;
}

/**
 * Checks a template read back from a store (a file, a row): everything a draft must satisfy, plus its version and
 * time. Returns the problems; an empty list means it is sound.
 */
export function storedTemplateProblems(value: Partial<Record<keyof PromptTemplate, unknown>>): string[] {
  const checked = checkDraft(value as Partial<PromptDraft>);
  const errors = [...checked.validation.errors];
  const { version, createdAt } = value;
  if (!Number.isSafeInteger(version) || (version as number) < 1 || (version as number) > MAX_VERSION)
    errors.push(`version: ${JSON.stringify(version)} is not a version (1, 2, 3 …)`);
  if (typeof createdAt !== 'string' || Number.isNaN(Date.parse(createdAt)) || !createdAt.endsWith('Z'))
    errors.push(`createdAt: ${JSON.stringify(createdAt)} is not an ISO 8601 UTC time`);
  if (value.requiredVars === undefined) errors.push('requiredVars: is missing');
  return errors;
}

/** The digest of a version's content (text, variables, engine, metadata): what audit entries record. */
export function promptDigest(template: Pick<PromptTemplate, 'text' | 'requiredVars' | 'engine' | 'metadata'>): string {
  const { text, requiredVars, engine, metadata } = template;
  return canonicalDigest({ text, requiredVars, engine, metadata } satisfies Record<string, JsonValue>);
}
