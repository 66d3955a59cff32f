import { AgencyError } from '../../core/errors.ts';

/** What {@link checkSqlText} found in a query. */
export type SqlTextInfo = {
  /** The single statement, without its trailing `;` and whitespace. */
  sql: string;
  /** How many bare `?` placeholders it has. */
  positional: number;
  /** `?NNN` placeholders, which number themselves. */
  numbered: boolean;
  /** Names of `:name`, `@name` and `$name` placeholders, without the sigil. */
  named: string[];
};

/**
 * Scans a query the way SQL tokenizes it (quotes, comments, placeholders) and refuses what a parameterized query
 * has no use for: a second statement after `;`, and string or blob literals, which is what values pasted into the
 * text look like (`WHERE name = 'x' OR '1'='1'`). Values belong in `params`.
 *
 * @throws AgencyError `sql_refused` saying what to change.
 */
export function checkSqlText(query: string, { allowStringLiterals = false } = {}): SqlTextInfo {
  const named = new Set<string>();
  let positional = 0;
  let numbered = false;
  let end = -1;
  for (let i = 0; i < query.length;) {
    const char = query[i] ?? '';
    const next = query[i + 1] ?? '';
    if (char === '-' && next === '-') {
      const newline = query.indexOf('\n', i);
      i = newline === -1 ? query.length : newline + 1;
    } else if (char === '/' && next === '*') {
      const close = query.indexOf('*/', i + 2);
      if (close === -1) throw refused('it has an unterminated /* comment');
      i = close + 2;
    } else if (end !== -1) {
      if (!/\s/.test(char)) throw refused('it has more than one statement; send one statement per call');
      i += 1;
    } else if (char === "'") {
      if (!allowStringLiterals) {
        throw refused(
          'it has a string literal; put values in "params" and use placeholders (? or :name) instead, e.g. ' +
            '{"query": "SELECT * FROM users WHERE name = ?", "params": ["Ada"]}',
        );
      }
      i = skipQuoted(query, i, "'");
    } else if (char === '"' || char === '`') {
      i = skipQuoted(query, i, char);
    } else if (char === '[') {
      const close = query.indexOf(']', i + 1);
      if (close === -1) throw refused('it has an unterminated [identifier]');
      i = close + 1;
    } else if (char === ';') {
      end = i;
      i += 1;
    } else if (char === '?') {
      const digits = /^\d+/.exec(query.slice(i + 1))?.[0] ?? '';
      if (digits) numbered = true;
      else positional += 1;
      i += 1 + digits.length;
    } else if ((char === ':' || char === '@' || char === '$') && /[A-Za-z_]/.test(next)) {
      const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(query.slice(i + 1))?.[0] ?? '';
      named.add(name);
      i += 1 + name.length;
    } else {
      i += 1;
    }
  }
  const sql = (end === -1 ? query : query.slice(0, end)).trim();
  if (sql === '') throw refused('it is empty');
  return { sql, positional, numbered, named: [...named] };
}

function skipQuoted(query: string, start: number, quote: string): number {
  for (let i = start + 1; i < query.length; i += 1) {
    if (query[i] !== quote) continue;
    if (query[i + 1] === quote) i += 1;
    else return i + 1;
  }
  throw refused(`it has an unterminated ${quote} quote`);
}

function refused(why: string): AgencyError {
  return new AgencyError('sql_refused', `The query was refused: ${why}.`);
}
