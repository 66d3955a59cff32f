import { z } from 'zod';
import type { Message } from '../core/messages.ts';

// The schema of agency's `Message` (src/core/messages.ts), for messages read from files. Unknown keys are dropped.

const providerOptions = z.record(z.string(), z.record(z.string(), z.json())).optional();

const fileData = z.discriminatedUnion('type', [
  z.object({ type: z.literal('base64'), base64: z.string() }),
  z.object({ type: z.literal('url'), url: z.string() }),
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('reference'), reference: z.record(z.string(), z.string()) }),
]);

const text = z.object({
  type: z.literal('text'),
  text: z.string(),
  citations: z.array(z.json()).optional(),
  providerOptions,
});
const media = { data: fileData, mediaType: z.string(), filename: z.string().optional(), providerOptions };
const image = z.object({ type: z.literal('image'), ...media });
const file = z.object({ type: z.literal('file'), ...media });
const reasoning = z.object({ type: z.literal('reasoning'), text: z.string(), providerOptions });
const toolCall = z.object({
  type: z.literal('tool-call'),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  input: z.unknown(),
  inputError: z.string().optional(),
  providerExecuted: z.boolean().optional(),
  dynamic: z.boolean().optional(),
  providerOptions,
});
const toolOutput = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), value: z.string(), providerOptions }),
  z.object({ type: z.literal('json'), value: z.json(), providerOptions }),
  z.object({ type: z.literal('error-text'), value: z.string(), providerOptions }),
  z.object({ type: z.literal('error-json'), value: z.json(), providerOptions }),
  z.object({ type: z.literal('execution-denied'), reason: z.string().optional(), providerOptions }),
  z.object({ type: z.literal('content'), value: z.array(z.looseObject({ type: z.string() })), providerOptions }),
]);
const toolResult = z.object({
  type: z.literal('tool-result'),
  toolCallId: z.string().min(1),
  toolName: z.string().min(1),
  output: toolOutput,
  providerExecuted: z.boolean().optional(),
  preliminary: z.boolean().optional(),
  providerOptions,
});
const providerPart = z.object({ type: z.literal('provider-part'), part: z.json() });

const messageSchema = z.discriminatedUnion('role', [
  z.object({ role: z.literal('system'), content: z.string(), providerOptions }),
  z.object({
    role: z.literal('user'),
    content: z.array(z.discriminatedUnion('type', [text, image, file])),
    providerOptions,
  }),
  z.object({
    role: z.literal('assistant'),
    content: z.array(z.discriminatedUnion('type', [text, image, file, reasoning, toolCall, toolResult, providerPart])),
    providerOptions,
  }),
  z.object({
    role: z.literal('tool'),
    content: z.array(z.discriminatedUnion('type', [toolResult, providerPart])),
    providerOptions,
  }),
]);

/**
 * Checks a parsed JSON value against the `Message` shape. `{ role, content: string }` is accepted for system, user
 * and assistant messages. Returns the message, or the first problem as `path: reason`.
 */
export function toMessage(value: unknown): { message: Message } | { problem: string } {
  const result = messageSchema.safeParse(withTextContent(value));
  if (result.success) return { message: result.data as Message };
  const issue = result.error.issues[0];
  const path = issue === undefined || issue.path.length === 0 ? 'message' : issue.path.join('.');
  return { problem: `${path}: ${issue?.message ?? 'invalid message'}` };
}

function withTextContent(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  const { role, content } = value as { role?: unknown; content?: unknown };
  if (typeof content !== 'string' || (role !== 'user' && role !== 'assistant')) return value;
  return { ...value, content: [{ type: 'text', text: content }] };
}
