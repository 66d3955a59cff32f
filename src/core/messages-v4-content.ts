import type { LanguageModelV4Content, SharedV4ProviderOptions } from '@ai-sdk/provider';
import { decodeJson, encodeJson } from './json-codec.ts';
import type { AssistantMessage, JsonValue, ProviderOptions, TextPart, ToolCallPart } from './messages.ts';
import {
  fromV4FileData,
  isImage,
  providerPart,
  toV4FileData,
  withOptions,
  withProviderOptions,
} from './messages-v4-shared.ts';

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

function metadataOf(options: ProviderOptions | undefined) {
  return options === undefined ? {} : { providerMetadata: options as SharedV4ProviderOptions };
}
