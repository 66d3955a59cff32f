import { isAbsolute, resolve } from 'node:path';
import { AgencyError } from '../core/errors.ts';

/** A memory store named on the command line or in the operator config. */
export type MemoryStoreUrl =
  { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string } | { kind: 'redis'; url: string };

const KNOWN_LATER = /^(zep):/i;
const FORMS = 'sqlite:<path>, postgres://<user>@<host>/<database> or redis://<host>:<port>';

/**
 * Parses a memory store's name: `sqlite:<path>` (a relative path is taken from `base`), a `postgres://` (or
 * `postgresql://`) URL or a `redis://` (or `rediss://`) URL. `where` names the flag or
 * config field in errors. A store's name is never echoed as given, since a URL may hold a password.
 *
 * @throws AgencyError `invalid_config` for a name this agency cannot open, saying which forms it can.
 * @example
 * parseMemoryStoreUrl('sqlite:./memory.db', '--memory', process.cwd()); // { kind: 'sqlite', path: '/…/memory.db' }
 */
export function parseMemoryStoreUrl(text: string, where: string, base: string): MemoryStoreUrl {
  const shown = redactStoreUrl(text);
  if (typeof text !== 'string' || text.trim() === '') {
    throw new AgencyError('invalid_config', `${where}: the memory store is empty; use ${FORMS}`);
  }
  if (text.startsWith('sqlite:')) {
    const path = text.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '' || path.includes('\u0000')) {
      throw new AgencyError(
        'invalid_config',
        `${where}: "${shown}" names no file; use sqlite:<path>, e.g. sqlite:./memory.db`,
      );
    }
    return { kind: 'sqlite', path: isAbsolute(path) ? path : resolve(base, path) };
  }
  if (/^postgres(ql)?:\/\/[^\s]+$/i.test(text)) {
    if (!URL.canParse(text)) throw new AgencyError('invalid_config', `${where}: "${shown}" is not a valid URL`);
    return { kind: 'postgres', url: text };
  }
  if (/^rediss?:\/\/[^\s]+$/i.test(text)) {
    if (!URL.canParse(text)) throw new AgencyError('invalid_config', `${where}: "${shown}" is not a valid URL`);
    return { kind: 'redis', url: text };
  }
  const scheme = KNOWN_LATER.exec(text)?.[1];
  const problem = scheme
    ? `${scheme} memory stores cannot be named here; this agency opens ${FORMS}`
    : `is not a memory store this agency knows; use ${FORMS}, e.g. sqlite:./memory.db`;
  throw new AgencyError('invalid_config', `${where}: "${shown}" ${problem}`);
}

/** A store's name fit to print: the password (and user) of a URL are replaced by `***`, and it is cut at 200. */
export function redactStoreUrl(text: unknown): string {
  if (typeof text !== 'string') return String(text);
  const hidden = text
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, '$1***@')
    .replace(/([?&](?:password|pass|pwd|token|secret)=)[^&#]*/gi, '$1***');
  return hidden.length > 200 ? `${hidden.slice(0, 199)}…` : hidden;
}
