import type {
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4ToolResultOutput,
} from '@ai-sdk/provider';
import { decodeJson } from './json-codec.ts';
import type {
  FilePart,
  ImagePart,
  Message,
  MessagePart,
  ProviderPart,
  ToolResultContentPart,
  ToolResultOutput,
} from './messages.ts';
import {
  fromV4FileData,
  isImage,
  providerPart,
  toV4FileData,
  withOptions,
  withProviderOptions,
} from './messages-v4-shared.ts';

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
