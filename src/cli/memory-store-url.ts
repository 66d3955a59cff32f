import { isAbsolute, resolve } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import { printableUrl } from '../core/printable-url.ts';

/** A memory store named on the command line or in the operator config. */
export type MemoryStoreUrl =
  | { kind: 'sqlite'; path: string }
  | { kind: 'postgres'; url: string }
  | { kind: 'redis'; url: string }
  /** Zep: the API base URL and the graph prefix; the API key is read from ZEP_API_KEY when the store opens. */
  | { kind: 'zep'; baseUrl: string; graphPrefix?: string };

const FORMS = 'sqlite:<path>, postgres://<user>@<host>/<database>, redis://<host>:<port> or zep://<host>';

/**
 * Parses a memory store's name: `sqlite:<path>` (a relative path is taken from `base`), a `postgres://` (or
 * `postgresql://`) URL, a `redis://` (or `rediss://`) URL, or a `zep://<host>[:port][/path]`
 * URL (HTTPS; `zep+http://` for a local Zep; path `/api/v2` when none; `?prefix=` sets the graph prefix; the API key
 * comes from ZEP_API_KEY, never the URL). `where` names the flag or config field in errors. A store's name is never echoed as given, since a URL may hold a password.
 *
 * @throws AgencyError `invalid_config` for a name this agency cannot open, saying which forms it can.
 * @example
 * parseMemoryStoreUrl('sqlite:./memory.db', '--memory', process.cwd()); // { kind: 'sqlite', path: '/…/memory.db' }
 */
export function parseMemoryStoreUrl(text: string, where: string, base: string): MemoryStoreUrl {
  const shown = printableUrl(text);
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
  if (/^zep(\+http)?:\/\/[^\s]+$/i.test(text)) return parseZepUrl(text, where, shown);
  throw new AgencyError(
    'invalid_config',
    `${where}: "${shown}" is not a memory store this agency knows; use ${FORMS}, e.g. sqlite:./memory.db`,
  );
}

// zep://host[:port][/path][?prefix=…] → https://host[:port]/path (zep+http:// → http://).
function parseZepUrl(text: string, where: string, shown: string): MemoryStoreUrl {
  if (!URL.canParse(text)) throw new AgencyError('invalid_config', `${where}: "${shown}" is not a valid URL`);
  const url = new URL(text);
  if (url.username !== '' || url.password !== '') {
    throw new AgencyError(
      'invalid_config',
      `${where}: "${shown}" holds credentials; a Zep URL names only the host, and the API key goes in ZEP_API_KEY`,
    );
  }
  const prefix = url.searchParams.get('prefix');
  if (prefix !== null && !/^[a-z0-9]{1,40}$/.test(prefix)) {
    throw new AgencyError('invalid_config', `${where}: "${shown}" has a "prefix" that is not 1 to 40 a-z or 0-9`);
  }
  const scheme = url.protocol.toLowerCase() === 'zep+http:' ? 'http' : 'https';
  const path = url.pathname === '' || url.pathname === '/' ? '/api/v2' : url.pathname.replace(/\/$/, '');
  return {
    kind: 'zep',
    baseUrl: `${scheme}://${url.host}${path}`,
    ...(prefix === null ? {} : { graphPrefix: prefix }),
  };
}
