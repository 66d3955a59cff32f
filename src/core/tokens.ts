/** The marker that ends text cut short by {@link truncateToTokens}. */
export const ELLIPSIS = '…';

// The one ratio every estimate uses: the memory budgets, the run budgets checked before a model call, the context
// window a request needs, and the scripted model's usage.
const CHARS_PER_TOKEN = 4;

/**
 * An estimate of how many tokens `text` costs: `ceil(length / 4)`, where `length` is the JavaScript string length
 * (UTF-16 code units). It needs no tokenizer, is the same for every provider and never changes, so budgets computed
 * with it are deterministic. It is close for English prose and code; it undercounts CJK text, which is denser.
 *
 * @example
 * estimateTokens('abcde') // 2
 */
export function estimateTokens(text: string): number {
  return tokensForChars(text.length);
}

/** {@link estimateTokens} of a text `chars` UTF-16 code units long, for callers that count without building it. */
export function tokensForChars(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * `text` cut so that {@link estimateTokens} of the result is at most `maxTokens`. A cut text ends with
 * {@link ELLIPSIS}; a surrogate pair is never split. Text that already fits is returned unchanged.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  const maxChars = Math.max(0, Math.floor(maxTokens) * CHARS_PER_TOKEN);
  if (text.length <= maxChars) return text;
  if (maxChars < ELLIPSIS.length) return '';
  let end = maxChars - ELLIPSIS.length;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}${ELLIPSIS}`;
}
