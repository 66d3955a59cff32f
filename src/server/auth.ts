import { createHmac, timingSafeEqual } from 'node:crypto';

/** The name of the session cookie. */
export const SESSION_COOKIE = 'agency_session';

/**
 * A session cookie's value: the holder's name and expiry, signed with HMAC-SHA256 under the server's session key, so
 * a session survives a restart of the server (the key is kept under the data root) and cannot be forged or extended.
 */
export function signSession(name: string, expiresAt: number, key: Uint8Array): string {
  const payload = Buffer.from(JSON.stringify({ n: name, e: expiresAt })).toString('base64url');
  return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
}

/** The name a session cookie was signed for, or undefined when it is forged, malformed or expired. */
export function verifySession(value: string | undefined, key: Uint8Array, now: number): string | undefined {
  if (!value || value.length > 1024) return undefined;
  const dot = value.indexOf('.');
  if (dot <= 0) return undefined;
  const payload = value.slice(0, dot);
  const expected = createHmac('sha256', key).update(payload).digest();
  const given = Buffer.from(value.slice(dot + 1), 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const { n, e } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { n?: unknown; e?: unknown };
    return typeof n === 'string' && typeof e === 'number' && e > now ? n : undefined;
  } catch {
    return undefined;
  }
}
