/** The marker that ends text cut short by {@link truncateToTokens}. */
export const ELLIPSIS = '…';

/**
 * An estimate of how many tokens `text` costs: `ceil(length / 4)`, where `length` is the JavaScript string length
 * (UTF-16 code units). It needs no tokenizer, is the same for every provider and never changes, so budgets computed
 * with it are deterministic. It is close for English prose and code; it undercounts CJK text, which is denser.
 *
 * @example
 * estimateTokens('abcde') // 2
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * `text` cut so that {@link estimateTokens} of the result is at most `maxTokens`. A cut text ends with
 * {@link ELLIPSIS}; a surrogate pair is never split. Text that already fits is returned unchanged.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  const maxChars = Math.max(0, Math.floor(maxTokens) * 4);
  if (text.length <= maxChars) return text;
  if (maxChars < ELLIPSIS.length) return '';
  let end = maxChars - ELLIPSIS.length;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}${ELLIPSIS}`;
}
