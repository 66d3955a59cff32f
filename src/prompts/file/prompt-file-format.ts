import { isUtf8 } from 'node:buffer';
import { LineCounter, parseDocument, stringify } from 'yaml';
import { AgencyError } from '../../core/errors.ts';
import { MAX_PROMPT_METADATA_BYTES, MAX_PROMPT_TEXT_BYTES, storedTemplateProblems } from '../prompt-checks.ts';
import type { PromptAuditEntry, PromptTemplate } from '../prompt-store.ts';

// One version of a template is one Markdown file, `<id>/<version>.md`: YAML front matter between two `---` lines
// holding every field but the text, then the text, byte for byte, to the end of the file.

/** The largest version file read: the largest text and metadata, and room for the other fields. */
export const MAX_PROMPT_FILE_BYTES = MAX_PROMPT_TEXT_BYTES + MAX_PROMPT_METADATA_BYTES + 8 * 1024;

const FIELDS = ['id', 'version', 'engine', 'requiredVars', 'metadata', 'createdBy', 'createdAt'] as const;

/** The file of a version. */
export function formatPromptFile(template: PromptTemplate): string {
  const header: Record<string, unknown> = {};
  for (const field of FIELDS) header[field] = template[field];
  return `---\n${stringify(header, { lineWidth: 0 })}---\n${template.text}`;
}

/**
 * Reads a version file back, checking it as `put` checks a draft, and that its id and version are the ones its path
 * names.
 * @throws AgencyError `prompt_invalid` naming the file and the line at fault, and how to fix it.
 */
export function parsePromptFile(
  file: string,
  bytes: Buffer,
  expected: { id: string; version: number },
): PromptTemplate {
  if (bytes.byteLength > MAX_PROMPT_FILE_BYTES) {
    throw fileError(
      file,
      1,
      `${bytes.byteLength} bytes is over the ${MAX_PROMPT_FILE_BYTES}-byte limit of a version file`,
    );
  }
  if (!isUtf8(bytes)) throw fileError(file, badUtf8Line(bytes), 'is not valid UTF-8; save it as UTF-8');
  const content = bytes.toString('utf8');
  const open = /^---\r?\n/.exec(content);
  const close = /\r?\n---\r?\n/.exec(content.slice(open?.[0].length ?? 0));
  if (!open || !close) {
    throw fileError(
      file,
      1,
      'has no front matter: start it with a "---" line, the fields, then a "---" line before the text',
    );
  }
  const headerText = content.slice(open[0].length, open[0].length + close.index + 1);
  const text = content.slice(open[0].length + close.index + close[0].length);
  const counter = new LineCounter();
  const doc = parseDocument(headerText, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const [yamlError] = doc.errors;
  if (yamlError) {
    const line = counter.linePos(yamlError.pos[0]).line + 1;
    throw fileError(file, line, `${yamlError.message.split('\n')[0]}; fix the YAML of the front matter`);
  }
  const header: unknown = doc.toJS({ maxAliasCount: 0 });
  if (typeof header !== 'object' || header === null || Array.isArray(header)) {
    throw fileError(file, 2, 'the front matter must be YAML fields (id, version, engine, requiredVars, …)');
  }
  const fields = header as Record<string, unknown>;
  const lineOf = (field: string) => {
    const at = headerText.split('\n').findIndex((line) => line.startsWith(`${field}:`));
    return at < 0 ? 1 : at + 2;
  };
  const unknown = Object.keys(fields).find((key) => !(FIELDS as readonly string[]).includes(key) && key !== 'text');
  if (unknown)
    throw fileError(
      file,
      lineOf(unknown),
      `"${unknown}" is not a field of a prompt; remove it (fields: ${FIELDS.join(', ')})`,
    );
  if ('text' in fields)
    throw fileError(file, lineOf('text'), 'the text goes after the front matter, not in a "text" field');
  const template = { ...fields, text } as PromptTemplate;
  const [problem] = storedTemplateProblems(template);
  if (problem) {
    const field = /^(\w+)/.exec(problem)?.[1] ?? '';
    throw fileError(file, field === 'text' ? textLine(problem, content, text) : lineOf(field), problem);
  }
  if (template.id !== expected.id || template.version !== expected.version) {
    const field = template.id !== expected.id ? 'id' : 'version';
    throw fileError(
      file,
      lineOf(field),
      `${field}: ${JSON.stringify(template[field])} is not the ${field} its path names (${expected.id}/${expected.version}.md); rename the file or fix the field`,
    );
  }
  return template;
}

/** One line of `audit.ndjson`. */
export function formatAuditLine(entry: PromptAuditEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

/**
 * The entries of `audit.ndjson`.
 * @throws AgencyError `prompt_invalid` naming the file and the line that is not an audit entry.
 */
export function parseAuditLines(file: string, content: string): PromptAuditEntry[] {
  const entries: PromptAuditEntry[] = [];
  content.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      entry = undefined;
    }
    if (!isAuditEntry(entry)) {
      throw fileError(
        file,
        index + 1,
        'is not an audit entry (one JSON object a line); restore it from version control',
      );
    }
    entries.push(entry);
  });
  return entries;
}

function isAuditEntry(value: unknown): value is PromptAuditEntry {
  if (typeof value !== 'object' || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.id === 'string' &&
    Number.isSafeInteger(entry.version) &&
    entry.action === 'put' &&
    typeof entry.by === 'string' &&
    typeof entry.at === 'string' &&
    typeof entry.sha256 === 'string' &&
    Array.isArray(entry.changed) &&
    (entry.previous === null || typeof entry.previous === 'object')
  );
}

/** `prompt_invalid` for a file, as `file:line: message`. */
export function fileError(file: string, line: number, message: string): AgencyError {
  return new AgencyError('prompt_invalid', `${file}:${line}: ${message}`, { details: { file, line } });
}

// A text problem names its line within the text ("text line 3, column 2: …"): the file line is that plus the
// lines before the text.
function textLine(problem: string, content: string, text: string): number {
  const before = content.slice(0, content.length - text.length).split('\n').length - 1;
  const within = /^text line (\d+)/.exec(problem);
  return before + (within ? Number(within[1]) : 1);
}

function badUtf8Line(bytes: Buffer): number {
  let low = 0;
  let high = bytes.byteLength;
  // The longest valid prefix, give or take a character cut in half: its line is the bad byte's line.
  while (high - low > 4) {
    const middle = Math.floor((low + high) / 2);
    if (isUtf8(bytes.subarray(0, middle))) low = middle;
    else high = middle;
  }
  let line = 1;
  for (let i = 0; i < low; i++) if (bytes[i] === 0x0a) line++;
  return line;
}
