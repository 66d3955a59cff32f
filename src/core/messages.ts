/**
 * Provider-agnostic chat messages. They are plain JSON (bytes are base64, URLs are strings), so a transcript can be
 * journaled, serialized with a suspended run, or recorded, and come back unchanged. `model/` converts them to and
 * from the AI SDK `LanguageModelV4` prompt and content types.
 */
import { bytesToBase64 } from './bytes.ts';

/** A JSON value. */
export type JsonValue = null | string | number | boolean | JsonValue[] | { [key: string]: JsonValue };

/** Options passed through to one provider, keyed by provider name (e.g. Anthropic cache control, signatures). */
export type ProviderOptions = Record<string, Record<string, JsonValue>>;

/** Where the bytes of an image or file come from. */
export type FileData =
  | { type: 'base64'; base64: string }
  | { type: 'url'; url: string }
  | { type: 'text'; text: string }
  | { type: 'reference'; reference: Record<string, string> };

/** Plain text. `citations` are kept from model output but never sent back in a prompt. */
export type TextPart = { type: 'text'; text: string; citations?: JsonValue[]; providerOptions?: ProviderOptions };

/** An image; `mediaType` is e.g. `image/png`, or just `image`. */
export type ImagePart = {
  type: 'image';
  data: FileData;
  mediaType: string;
  filename?: string;
  providerOptions?: ProviderOptions;
};

/** Any other file, e.g. a PDF. */
export type FilePart = {
  type: 'file';
  data: FileData;
  mediaType: string;
  filename?: string;
  providerOptions?: ProviderOptions;
};

/** The model's reasoning. Provider signatures needed to send it back travel in `providerOptions`. */
export type ReasoningPart = { type: 'reasoning'; text: string; providerOptions?: ProviderOptions };

/** A tool call made by the model. */
export type ToolCallPart = {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  /** The parsed arguments, or the raw text when it was not valid JSON (see `inputError`). */
  input: unknown;
  /** Set when the model's arguments were not valid JSON: the parse error. `input` then holds the raw text. */
  inputError?: string;
  providerExecuted?: boolean;
  dynamic?: boolean;
  providerOptions?: ProviderOptions;
};

/** One piece of a multi-part tool result. */
export type ToolResultContentPart =
  | { type: 'text'; text: string; providerOptions?: ProviderOptions }
  | { type: 'file'; data: FileData; mediaType: string; filename?: string; providerOptions?: ProviderOptions }
  | { type: 'custom'; providerOptions?: ProviderOptions };

/** What a tool returned, as the model will see it. */
export type ToolResultOutput =
  | { type: 'text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'error-text'; value: string; providerOptions?: ProviderOptions }
  | { type: 'error-json'; value: JsonValue; providerOptions?: ProviderOptions }
  | { type: 'execution-denied'; reason?: string; providerOptions?: ProviderOptions }
  | { type: 'content'; value: ToolResultContentPart[]; providerOptions?: ProviderOptions };

/** The result of a tool call, matched to it by `toolCallId`. */
export type ToolResultPart = {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
  providerExecuted?: boolean;
  preliminary?: boolean;
  providerOptions?: ProviderOptions;
};

/**
 * A provider-specific part that agency does not model (custom content, reasoning files, sources, approval
 * requests and responses). It is carried through unchanged, JSON-encoded as in `encodeJson`.
 */
export type ProviderPart = { type: 'provider-part'; part: JsonValue };

/** Any part of a message. */
export type MessagePart =
  TextPart | ImagePart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | ProviderPart;

/** The system prompt. */
export type SystemMessage = { role: 'system'; content: string; providerOptions?: ProviderOptions };
/** What the user said. */
export type UserMessage = {
  role: 'user';
  content: Array<TextPart | ImagePart | FilePart>;
  providerOptions?: ProviderOptions;
};
/** What the model said. */
export type AssistantMessage = {
  role: 'assistant';
  content: Array<TextPart | ImagePart | FilePart | ReasoningPart | ToolCallPart | ToolResultPart | ProviderPart>;
  providerOptions?: ProviderOptions;
};
/** Tool results sent back to the model. */
export type ToolMessage = {
  role: 'tool';
  content: Array<ToolResultPart | ProviderPart>;
  providerOptions?: ProviderOptions;
};

/** A message in a conversation. */
export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A system message. */
export function systemMessage(text: string): SystemMessage {
  return { role: 'system', content: text };
}

/** A user message from text, or from parts. */
export function userMessage(content: string | UserMessage['content']): UserMessage {
  return { role: 'user', content: typeof content === 'string' ? [{ type: 'text', text: content }] : content };
}

/** An assistant message from text, or from parts. */
export function assistantMessage(content: string | AssistantMessage['content']): AssistantMessage {
  return { role: 'assistant', content: typeof content === 'string' ? [{ type: 'text', text: content }] : content };
}

/** An image part from bytes (stored as base64) or a URL. */
export function imagePart(source: Uint8Array | URL | string, mediaType = 'image'): ImagePart {
  return { type: 'image', data: fileData(source), mediaType };
}

/** File data from bytes (stored as base64), a URL object, or a URL string. */
export function fileData(source: Uint8Array | URL | string): FileData {
  if (source instanceof Uint8Array) return { type: 'base64', base64: bytesToBase64(source) };
  return { type: 'url', url: source instanceof URL ? source.href : source };
}

/** The concatenated text parts of a message. */
export function textOf(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  let out = '';
  for (const part of message.content) if (part.type === 'text') out += part.text;
  return out;
}

/** The tool calls of an assistant message. */
export function toolCallsOf(message: Message): ToolCallPart[] {
  if (message.role !== 'assistant') return [];
  return message.content.filter((part): part is ToolCallPart => part.type === 'tool-call');
}
