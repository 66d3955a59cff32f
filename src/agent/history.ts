import type { ToolResultOutput } from '../core/messages.ts';

/** The marker appended where a tool result was cut short in the history. */
export const TRUNCATION_MARKER = '[output truncated]';

/**
 * The tool result as the model will see it: text or JSON longer than `maxChars` is cut to `maxChars` characters with
 * {@link TRUNCATION_MARKER} appended. Events and step traces keep the full output; only the history is truncated.
 */
export function truncateForHistory(output: ToolResultOutput, maxChars: number): ToolResultOutput {
  if (output.type === 'text' || output.type === 'error-text') {
    if (output.value.length <= maxChars) return output;
    return { ...output, value: cut(output.value, maxChars) };
  }
  if (output.type === 'json' || output.type === 'error-json') {
    const text = JSON.stringify(output.value);
    if (text.length <= maxChars) return output;
    return { type: output.type === 'json' ? 'text' : 'error-text', value: cut(text, maxChars) };
  }
  return output;
}

function cut(text: string, maxChars: number): string {
  // Never split a surrogate pair: the cut text must stay well-formed for the provider.
  let end = maxChars;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}\n${TRUNCATION_MARKER}`;
}
