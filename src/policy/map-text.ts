import type { Message, MessagePart, ToolResultOutput } from '../core/messages.ts';
import type { PolicyRequest } from './policy-types.ts';

/** Maps a string to a string; content filters use it both to test and to redact. */
export type TextMapper = (text: string) => string;

/**
 * The request's payload with `fn` applied to every piece of content in it. Only content is touched: message text,
 * reasoning, tool-call arguments and tool results, never part types, ids or media types, so a redacting filter
 * cannot break the structure of a conversation.
 */
export function mapPayloadText(request: PolicyRequest, fn: TextMapper): unknown {
  switch (request.kind) {
    case 'model-input':
      return request.messages.map((message) => mapMessage(message, fn));
    case 'tool-output':
      return isToolResultOutput(request.output) ? mapToolOutput(request.output, fn) : mapStrings(request.output, fn);
    case 'tool-call':
      return mapStrings(request.input, fn);
    case 'memory-write':
      return mapStrings(request.entry, fn);
    case 'plan':
      return mapStrings(request.plan, fn);
  }
}

/** A deep copy of plain objects and arrays with `fn` applied to every string value (keys are kept). */
export function mapStrings(value: unknown, fn: TextMapper): unknown {
  if (typeof value === 'string') return fn(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, fn));
  if (typeof value !== 'object' || value === null) return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = mapStrings(item, fn);
  return out;
}

function mapMessage(message: Message, fn: TextMapper): Message {
  switch (message.role) {
    case 'system':
      return { ...message, content: fn(message.content) };
    case 'user':
      return { ...message, content: message.content.map((part) => mapPart(part, fn) as typeof part) };
    case 'assistant':
      return { ...message, content: message.content.map((part) => mapPart(part, fn)) };
    case 'tool':
      return { ...message, content: message.content.map((part) => mapPart(part, fn) as typeof part) };
  }
}

function mapPart(part: MessagePart, fn: TextMapper): MessagePart {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return { ...part, text: fn(part.text) };
    case 'tool-call':
      return { ...part, input: mapStrings(part.input, fn) };
    case 'tool-result':
      return { ...part, output: mapToolOutput(part.output, fn) };
    default:
      return part;
  }
}

function mapToolOutput(output: ToolResultOutput, fn: TextMapper): ToolResultOutput {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { ...output, value: fn(output.value) };
    case 'json':
    case 'error-json':
      return { ...output, value: mapStrings(output.value, fn) as typeof output.value };
    case 'execution-denied':
      return output.reason === undefined ? output : { ...output, reason: fn(output.reason) };
    case 'content':
      return {
        ...output,
        value: output.value.map((part) => (part.type === 'text' ? { ...part, text: fn(part.text) } : part)),
      };
  }
}

const OUTPUT_TYPES = new Set(['text', 'json', 'error-text', 'error-json', 'execution-denied', 'content']);

function isToolResultOutput(value: unknown): value is ToolResultOutput {
  return typeof value === 'object' && value !== null && OUTPUT_TYPES.has(String((value as { type?: unknown }).type));
}
