import { createHash, timingSafeEqual } from 'node:crypto';

/** A bearer token and the name its holder acts under (in decision files and the journal). */
export type NamedToken = { name: string; token: string };

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * The name of the token `candidate` matches, compared in constant time: every token is compared, over equal-length
 * digests, whatever matches first, so timing tells nothing about a token's content or length.
 */
export function matchToken(candidate: string, tokens: readonly NamedToken[]): string | undefined {
  const given = digest(candidate);
  let found: string | undefined;
  for (const { name, token } of tokens) {
    if (timingSafeEqual(given, digest(token)) && found === undefined) found = name;
  }
  return found;
}

/** The token in an `Authorization: Bearer <token>` header, if it has that form. */
export function bearerOf(header: string | undefined): string | undefined {
  const match = /^Bearer +([^\s]+) *$/i.exec(header ?? '');
  return match?.[1];
}
