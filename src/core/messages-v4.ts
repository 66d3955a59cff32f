import type {
  LanguageModelV4Content,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
  SharedV4FileData,
  SharedV4ProviderOptions,
} from '@ai-sdk/provider';
import { AgencyError } from './errors.ts';
import { decodeJson, encodeJson } from './json-codec.ts';
import type {
  AssistantMessage,
  FileData,
  FilePart,
  ImagePart,
  JsonValue,
  Message,
  MessagePart,
  ProviderOptions,
  ProviderPart,
  TextPart,
  ToolCallPart,
  ToolResultContentPart,
  ToolResultOutput,
} from './messages.ts';

type V4AssistantPart = Extract<LanguageModelV4Message, { role: 'assistant' }>['content'][number];
type V4ToolPart = Extract<LanguageModelV4Message, { role: 'tool' }>['content'][number];

/** Converts agency messages into an AI SDK `LanguageModelV4Prompt`. */
export function toV4Prompt(messages: readonly Message[]): LanguageModelV4Prompt {
  return messages.map(toV4Message);
}

/** Converts an AI SDK prompt into agency messages. `toV4Prompt(fromV4Prompt(p))` equals `p` in content. */
export function fromV4Prompt(prompt: LanguageModelV4Prompt): Message[] {
  return prompt.map(fromV4Message);
}

// The agent loop converts every message it sends, so the conversions into V4 add provider options in place rather
// than spreading an object per message and part; the keys come out in the same order.
function toV4Message(message: Message): LanguageModelV4Message {
  const { providerOptions } = message;
  switch (message.role) {
    case 'system':
      return withProviderOptions({ role: 'system', content: message.content }, providerOptions);
    case 'user':
      return withProviderOptions(
        { role: 'user', content: message.content.map((part) => toV4Part(part) as never) },
        providerOptions,
      );
    case 'assistant': {
      const content: V4AssistantPart[] = [];
      for (const part of message.content) {
        const converted = toV4Part(part);
        if (converted !== undefined) content.push(converted as V4AssistantPart);
      }
      return withProviderOptions({ role: 'assistant', content }, providerOptions);
    }
    case 'tool':
      return withProviderOptions(
        { role: 'tool', content: message.content.map((part) => toV4Part(part) as V4ToolPart) },
        providerOptions,
      );
  }
}

function fromV4Message(message: LanguageModelV4Message): Message {
  const extra = withOptions(message.providerOptions);
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content, ...extra };
    case 'user':
      return { role: 'user', content: message.content.map((part) => fromV4Part(part) as never), ...extra };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content.map((part) => fromV4Part(part)),
        ...extra,
      };
    case 'tool':
      return { role: 'tool', content: message.content.map((part) => fromV4Part(part) as never), ...extra };
  }
}

function toV4Part(part: MessagePart): V4AssistantPart | V4ToolPart | undefined {
  switch (part.type) {
    case 'text':
      return withProviderOptions({ type: 'text' as const, text: part.text }, part.providerOptions);
    case 'image':
    case 'file':
      return toV4FilePart(part);
    case 'reasoning':
      return withProviderOptions({ type: 'reasoning' as const, text: part.text }, part.providerOptions);
    case 'tool-call': {
      const call: Extract<V4AssistantPart, { type: 'tool-call' }> = {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
      };
      if (part.providerExecuted !== undefined) call.providerExecuted = part.providerExecuted;
      return withProviderOptions(call, part.providerOptions);
    }
    case 'tool-result':
      return withProviderOptions(
        {
          type: 'tool-result' as const,
          toolCallId: part.toolCallId,
          toolName: part.toolName,
          output: toV4Output(part.output),
        },
        part.providerOptions,
      );
    case 'provider-part':
      return providerPartToPrompt(part);
  }
}

// Parts kept from model output go back into a prompt the way the AI SDK sends them: provider metadata becomes
// provider options, and output-only parts (sources, approval requests) are left out.
function providerPartToPrompt(part: ProviderPart): V4AssistantPart | undefined {
  const decoded = decodeJson(part.part) as Record<string, unknown>;
  if (decoded.type === 'source' || decoded.type === 'tool-approval-request') return undefined;
  if (decoded.providerMetadata === undefined) return decoded as unknown as V4AssistantPart;
  const { providerMetadata, ...rest } = decoded;
  return { ...rest, providerOptions: providerMetadata } as V4AssistantPart;
}

function fromV4Part(part: V4AssistantPart | V4ToolPart): MessagePart {
  const extra = withOptions('providerOptions' in part ? part.providerOptions : undefined);
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text, ...extra };
    case 'file':
      return fromV4FilePart(part);
    case 'reasoning':
      return { type: 'reasoning', text: part.text, ...extra };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.input,
        ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
        ...extra,
      };
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        output: fromV4Output(part.output),
        ...extra,
      };
    default:
      return providerPart(part);
  }
}

function toV4FilePart(part: ImagePart | FilePart): LanguageModelV4FilePart {
  return {
    type: 'file',
    data: toV4FileData(part.data),
    mediaType: part.mediaType,
    ...(part.filename === undefined ? {} : { filename: part.filename }),
    ...withOptions(part.providerOptions),
  };
}

function fromV4FilePart(part: LanguageModelV4FilePart): ImagePart | FilePart {
  return {
    type: isImage(part.mediaType) ? 'image' : 'file',
    data: fromV4FileData(part.data),
    mediaType: part.mediaType,
    ...(part.filename === undefined ? {} : { filename: part.filename }),
    ...withOptions(part.providerOptions),
  };
}

/** Converts agency file data to the AI SDK's tagged file data. */
export function toV4FileData(data: FileData): SharedV4FileData {
  switch (data.type) {
    case 'base64':
      return { type: 'data', data: data.base64 };
    case 'url': {
      const url = parseUrl(data.url);
      return url.href === data.url ? { type: 'url', url } : { type: 'url', url, originalUrl: data.url };
    }
    case 'text':
      return { type: 'text', text: data.text };
    case 'reference':
      return { type: 'reference', reference: data.reference };
  }
}

/** Converts the AI SDK's tagged file data to agency file data; bytes become base64. */
export function fromV4FileData(data: SharedV4FileData): FileData {
  switch (data.type) {
    case 'data':
      return {
        type: 'base64',
        base64: typeof data.data === 'string' ? data.data : Buffer.from(data.data).toString('base64'),
      };
    case 'url':
      return { type: 'url', url: data.originalUrl ?? data.url.href };
    case 'text':
      return { type: 'text', text: data.text };
    case 'reference':
      return { type: 'reference', reference: { ...data.reference } };
  }
}

function toV4Output(output: ToolResultOutput): LanguageModelV4ToolResultOutput {
  if (output.type !== 'content') return output;
  return {
    ...output,
    value: output.value.map((item) => (item.type === 'file' ? { ...item, data: toV4FileData(item.data) } : item)),
  };
}

function fromV4Output(output: LanguageModelV4ToolResultOutput): ToolResultOutput {
  if (output.type !== 'content') return output as ToolResultOutput;
  return {
    ...output,
    value: output.value.map(
      (item) => (item.type === 'file' ? { ...item, data: fromV4FileData(item.data) } : item) as ToolResultContentPart,
    ),
  };
}

/**
 * Converts what a model generated (`LanguageModelV4Content[]`) into an assistant message. Provider metadata becomes
 * provider options, which is how signatures reach the next request. Tool-call arguments are parsed from JSON; when
 * they are not valid JSON the raw text is kept and `inputError` says why.
 */
export function contentToAssistantMessage(content: readonly LanguageModelV4Content[]): AssistantMessage {
  return { role: 'assistant', content: content.map(contentToPart) };
}

function contentToPart(item: LanguageModelV4Content): AssistantMessage['content'][number] {
  switch (item.type) {
    case 'text': {
      const text: TextPart = { type: 'text', text: item.text };
      if (item.citations !== undefined) text.citations = encodeJson(item.citations) as JsonValue[];
      return withProviderOptions(text, item.providerMetadata as ProviderOptions | undefined);
    }
    case 'reasoning':
      return { type: 'reasoning', text: item.text, ...withOptions(item.providerMetadata) };
    case 'file':
      return {
        type: isImage(item.mediaType) ? 'image' : 'file',
        data: fromV4FileData(item.data),
        mediaType: item.mediaType,
        ...withOptions(item.providerMetadata),
      };
    case 'tool-call': {
      const call: ToolCallPart = { type: 'tool-call', toolCallId: item.toolCallId, toolName: item.toolName, input: {} };
      parseToolInput(item.input, call);
      if (item.providerExecuted !== undefined) call.providerExecuted = item.providerExecuted;
      if (item.dynamic !== undefined) call.dynamic = item.dynamic;
      return withProviderOptions(call, item.providerMetadata as ProviderOptions | undefined);
    }
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: item.toolCallId,
        toolName: item.toolName,
        output: { type: item.isError ? 'error-json' : 'json', value: item.result as JsonValue },
        providerExecuted: true,
        ...(item.preliminary === undefined ? {} : { preliminary: item.preliminary }),
        ...withOptions(item.providerMetadata),
      };
    default:
      return providerPart(item);
  }
}

/** Reverses {@link contentToAssistantMessage}. */
export function assistantMessageToContent(message: AssistantMessage): LanguageModelV4Content[] {
  return message.content.map(partToContent);
}

function partToContent(part: AssistantMessage['content'][number]): LanguageModelV4Content {
  const metadata = part.type === 'provider-part' ? {} : metadataOf(part.providerOptions);
  switch (part.type) {
    case 'text':
      return {
        type: 'text',
        text: part.text,
        ...(part.citations === undefined ? {} : { citations: decodeJson(part.citations) as never }),
        ...metadata,
      };
    case 'reasoning':
      return { type: 'reasoning', text: part.text, ...metadata };
    case 'image':
    case 'file':
      return { type: 'file', mediaType: part.mediaType, data: toV4FileData(part.data) as never, ...metadata };
    case 'tool-call':
      return {
        type: 'tool-call',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        input: part.inputError === undefined ? JSON.stringify(part.input) : String(part.input),
        ...(part.providerExecuted === undefined ? {} : { providerExecuted: part.providerExecuted }),
        ...(part.dynamic === undefined ? {} : { dynamic: part.dynamic }),
        ...metadata,
      };
    case 'tool-result':
      return {
        type: 'tool-result',
        toolCallId: part.toolCallId,
        toolName: part.toolName,
        result: ('value' in part.output ? part.output.value : null) as never,
        ...(part.output.type.startsWith('error') ? { isError: true } : {}),
        ...(part.preliminary === undefined ? {} : { preliminary: part.preliminary }),
        ...metadata,
      };
    case 'provider-part':
      return decodeJson(part.part) as LanguageModelV4Content;
  }
}

// Sets `input`, and `inputError` when the arguments are not valid JSON.
function parseToolInput(raw: string, call: ToolCallPart): void {
  // Providers send `""` for a call without arguments.
  if (raw.trim() === '') return;
  try {
    call.input = JSON.parse(raw);
  } catch (error) {
    call.input = raw;
    call.inputError = (error as Error).message;
  }
}

function providerPart(part: unknown): ProviderPart {
  return { type: 'provider-part', part: encodeJson(part) as JsonValue };
}

function withProviderOptions<T extends object>(
  target: T,
  options: ProviderOptions | SharedV4ProviderOptions | undefined,
): T {
  if (options !== undefined) (target as { providerOptions?: unknown }).providerOptions = options;
  return target;
}

function withOptions(options: ProviderOptions | SharedV4ProviderOptions | undefined) {
  return options === undefined ? {} : { providerOptions: options as ProviderOptions & SharedV4ProviderOptions };
}

function metadataOf(options: ProviderOptions | undefined) {
  return options === undefined ? {} : { providerMetadata: options as SharedV4ProviderOptions };
}

function isImage(mediaType: string): boolean {
  return mediaType === 'image' || mediaType.startsWith('image/');
}

function parseUrl(value: string): URL {
  try {
    return new URL(value);
  } catch (cause) {
    throw new AgencyError('invalid_argument', `File URL "${value}" is not a valid URL`, { cause });
  }
}
