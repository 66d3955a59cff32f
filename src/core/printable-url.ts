// One way to show a URL that may carry credentials: in errors, logs and CLI output a store's or service's address
// is printed through this, never as given.

/**
 * A URL (or anything given where one was expected) fit to print: the user and password before `@` and the values of
 * `password`/`pass`/`pwd`/`token`/`secret` query parameters become `***`, and the text is cut at 200 characters.
 * It works on text that does not parse as a URL too, since a malformed URL may still hold a password.
 * @example printableUrl('redis://admin:s3cret@cache:6379/0'); // 'redis://***@cache:6379/0'
 */
export function printableUrl(text: unknown): string {
  if (typeof text !== 'string') return String(text);
  const hidden = text
    .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/?#]*@/i, '$1***@')
    .replace(/([?&](?:password|pass|pwd|token|secret)=)[^&#]*/gi, '$1***');
  return hidden.length > 200 ? `${hidden.slice(0, 199)}…` : hidden;
}
