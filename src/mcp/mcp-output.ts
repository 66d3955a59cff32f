import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import type { JsonValue, ToolResultContentPart, ToolResultOutput } from '../core/messages.ts';

/**
 * What the model sees for a successful MCP tool result.
 *
 * - Structured content, when every content block is text (the text is then its serialized copy): JSON.
 * - Text only: one text value, blocks joined by blank lines.
 * - Images, audio and embedded binary resources: content parts with base64 file data, after the text parts. Text
 *   resources become text headed by their URI; resource links become a line naming the link.
 */
export function mcpResultToModelOutput(result: CallToolResult): ToolResultOutput {
  const blocks = result.content ?? [];
  const structured = result.structuredContent;
  if (structured != null && blocks.every((block) => block.type === 'text')) {
    return { type: 'json', value: toJson(structured) };
  }
  const parts = blocks.map(blockToPart);
  if (parts.every((part) => part.type === 'text')) {
    const text = parts.map((part) => part.text).join('\n\n');
    return { type: 'text', value: structured == null ? text : `${text}\n\n${JSON.stringify(structured)}` };
  }
  const head: ToolResultContentPart[] = structured == null ? [] : [{ type: 'text', text: JSON.stringify(structured) }];
  return { type: 'content', value: [...head, ...parts] };
}

/** The message of an MCP result with `isError: true`: its text, or a description of what it held. */
export function mcpErrorText(result: CallToolResult): string {
  const text = (result.content ?? [])
    .map((block) => {
      const part = blockToPart(block);
      return part.type === 'text' ? part.text : `[${part.mediaType} content]`;
    })
    .join('\n')
    .trim();
  if (text !== '') return text;
  if (result.structuredContent != null) return JSON.stringify(result.structuredContent);
  return 'the server reported an error without a message';
}

type Part =
  | { type: 'text'; text: string }
  | { type: 'file'; data: { type: 'base64'; base64: string }; mediaType: string; filename?: string };

function blockToPart(block: ContentBlock): Part {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'image':
    case 'audio':
      return { type: 'file', data: { type: 'base64', base64: block.data }, mediaType: block.mimeType };
    case 'resource_link': {
      const about = [block.mimeType, block.description].filter(Boolean).join(', ');
      return { type: 'text', text: `Resource link "${block.name}": ${block.uri}${about ? ` (${about})` : ''}` };
    }
    case 'resource': {
      const { resource } = block;
      if ('text' in resource && typeof resource.text === 'string') {
        return {
          type: 'text',
          text: `Resource ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}:\n${resource.text}`,
        };
      }
      const filename = fileNameOf(resource.uri);
      return {
        type: 'file',
        data: { type: 'base64', base64: 'blob' in resource && typeof resource.blob === 'string' ? resource.blob : '' },
        mediaType: resource.mimeType ?? 'application/octet-stream',
        ...(filename ? { filename } : {}),
      };
    }
    default:
      // A content type newer than this client: the model still gets to see it.
      return { type: 'text', text: JSON.stringify(block) };
  }
}

function fileNameOf(uri: string): string | undefined {
  const last = uri.split(/[/\\]/).pop();
  return last && last.length <= 255 ? last : undefined;
}

function toJson(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}
