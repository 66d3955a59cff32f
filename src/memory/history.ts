import { AgencyError } from '../core/errors.ts';
import type { Message } from '../core/messages.ts';
import { toMessage } from './message-schema.ts';

/** The seeded history files of a task folder, relative to the task root. */
export const HISTORY_FILES = { jsonl: 'task/history.jsonl', md: 'task/history.md' } as const;

/**
 * Parses `task/history.jsonl`: one message per line, either an agency `Message` or `{ "role", "content": "text" }`
 * (system, user or assistant). Blank lines are skipped.
 *
 * @throws AgencyError `history_invalid` naming the file and line: `task/history.jsonl:3: content.0.text: …`.
 * @example
 * parseHistoryJsonl('{"role":"user","content":"Hi"}\n') // [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]
 */
export function parseHistoryJsonl(text: string, file: string = HISTORY_FILES.jsonl): Message[] {
  const messages: Message[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (cause) {
      throw historyError(file, index + 1, `not valid JSON (${(cause as Error).message})`, cause);
    }
    const result = toMessage(value);
    if ('problem' in result) throw historyError(file, index + 1, result.problem);
    messages.push(result.message);
  });
  return messages;
}

const ROLE_HEADING = /^##[ \t]+(user|assistant|system)[ \t]*(\([^)]*\))?[ \t]*$/i;
const FENCE = /^[ \t]*(`{3,}|~{3,})/;

/**
 * Parses `task/history.md`. Each message starts with a heading `## user`, `## assistant` or `## system` (any case,
 * optionally followed by a note in parentheses, e.g. `## user (Ada, 3 May)`, which is ignored); its text is every
 * line up to the next such heading, without leading and trailing blank lines. Headings inside code fences are
 * text. Before the first heading only blank lines, `# ` title lines and `<!-- … -->` comments are allowed.
 *
 * @throws AgencyError `history_invalid` naming the file and line: stray text before the first heading, a message
 * with no text, or a code fence that is never closed.
 */
export function parseHistoryMarkdown(text: string, file: string = HISTORY_FILES.md): Message[] {
  const messages: Message[] = [];
  let current: { role: 'user' | 'assistant' | 'system'; line: number; lines: string[] } | undefined;
  let fence: { marker: string; line: number } | undefined;
  const finish = () => {
    if (current === undefined) return;
    const body = current.lines
      .join('\n')
      .replace(/^(?:[ \t]*\n)+/, '')
      .trimEnd();
    if (body.trim() === '') throw historyError(file, current.line, `"## ${current.role}" has no text`);
    messages.push(toRoleMessage(current.role, body));
  };
  text.split(/\r?\n/).forEach((line, index) => {
    const number = index + 1;
    const heading = fence === undefined ? ROLE_HEADING.exec(line) : null;
    if (heading !== null) {
      finish();
      current = { role: heading[1]?.toLowerCase() as 'user' | 'assistant' | 'system', line: number, lines: [] };
      return;
    }
    const marker = FENCE.exec(line)?.[1];
    if (marker !== undefined && fence === undefined) fence = { marker, line: number };
    else if (marker !== undefined && fence !== undefined && marker.startsWith(fence.marker)) fence = undefined;
    if (current !== undefined) current.lines.push(line);
    else if (!isPreamble(line)) {
      throw historyError(file, number, 'text before the first "## user", "## assistant" or "## system" heading');
    }
  });
  if (fence !== undefined) throw historyError(file, fence.line, 'code fence opened here is never closed');
  finish();
  return messages;
}

function isPreamble(line: string): boolean {
  const trimmed = line.trim();
  return trimmed === '' || /^#[ \t]/.test(trimmed) || /^<!--.*-->$/.test(trimmed);
}

function toRoleMessage(role: 'user' | 'assistant' | 'system', text: string): Message {
  if (role === 'system') return { role, content: text };
  return { role, content: [{ type: 'text', text }] };
}

function historyError(file: string, line: number, reason: string, cause?: unknown): AgencyError {
  return new AgencyError('history_invalid', `${file}:${line}: ${reason}`, {
    details: { file, line },
    ...(cause === undefined ? {} : { cause }),
  });
}
