// Decoding bytes for the model: text is returned as text, binary content is named as such rather than mangled.

/** How many leading bytes are inspected for a NUL byte when deciding whether content is binary. */
const SNIFF_BYTES = 8192;

/** Where a NUL byte sits in the first bytes of `bytes`, or -1. Text formats the model reads never contain one. */
export function binaryOffset(bytes: Uint8Array): number {
  return bytes.subarray(0, SNIFF_BYTES).indexOf(0);
}

/** Decodes strict UTF-8 (a leading BOM is dropped), or returns undefined when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** The label of a byte-order mark at the start of `bytes`, if any. */
export function bomCharset(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return 'utf-8';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** Decodes `bytes` with a WHATWG encoding label, or returns undefined when the label is unknown. */
export function decodeWith(bytes: Uint8Array, charset: string): string | undefined {
  try {
    return new TextDecoder(charset.trim().toLowerCase()).decode(bytes);
  } catch {
    return undefined;
  }
}

/** A string cut to at most `maxChars` UTF-16 units without splitting a surrogate pair. */
export function cutText(text: string, maxChars: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars) return { text, truncated: false };
  let end = maxChars;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true };
}

/** Bytes of `text` in UTF-8. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
