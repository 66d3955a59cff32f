import type { CallToolResult, ContentBlock, Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResultContentPart, ToolResultOutput } from '../core/messages.ts';
import type { Tool } from '../tools/define-tool.ts';
import type { ToolCallOutcome } from '../tools/run-tool-call.ts';

/** The `_meta` key carrying agency's error code on an error result. */
export const ERROR_CODE_META = 'agency/error-code';

/**
 * How an agency tool is listed to MCP clients. Its effects become annotations: hints for the client, which the
 * MCP spec tells clients not to trust blindly.
 */
export function toolDescriptor(tool: Tool): McpToolDescriptor {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema as McpToolDescriptor['inputSchema'],
    annotations: {
      readOnlyHint: tool.effects === 'read',
      destructiveHint: tool.effects === 'write' || tool.effects === 'exec',
      idempotentHint: tool.idempotent,
      openWorldHint: tool.effects === 'network' || tool.effects === 'exec',
    },
  };
}

/**
 * Turns the outcome of `runToolCall` into an MCP result. Failures (invalid arguments, timeouts, thrown errors) are
 * results with `isError`, so the client's model can read them and correct itself; the agency error code is in
 * `_meta["agency/error-code"]`. JSON objects are also sent as `structuredContent`.
 */
export function outcomeToCallToolResult(outcome: ToolCallOutcome): CallToolResult {
  if (!outcome.ok) {
    return {
      content: [{ type: 'text', text: outcome.error?.message ?? textOfError(outcome.modelOutput) }],
      isError: true,
      ...(outcome.error ? { _meta: { [ERROR_CODE_META]: outcome.error.code } } : {}),
    };
  }
  return outputToResult(outcome.modelOutput);
}

function outputToResult(output: ToolResultOutput): CallToolResult {
  switch (output.type) {
    case 'text':
      return { content: [{ type: 'text', text: output.value }] };
    case 'json': {
      const { value } = output;
      const structured = typeof value === 'object' && value !== null && !Array.isArray(value);
      return {
        content: [{ type: 'text', text: JSON.stringify(value) }],
        ...(structured ? { structuredContent: value } : {}),
      };
    }
    case 'content':
      return { content: output.value.flatMap((part, index) => partToBlocks(part, index)) };
    default:
      return { content: [{ type: 'text', text: textOfError(output) }], isError: true };
  }
}

function partToBlocks(part: ToolResultContentPart, index: number): ContentBlock[] {
  if (part.type === 'text') return [{ type: 'text', text: part.text }];
  if (part.type !== 'file') return [];
  const { data, mediaType } = part;
  const name = part.filename ?? `output-${index + 1}`;
  const uri = `agency:///tool-output/${encodeURIComponent(name)}`;
  switch (data.type) {
    case 'base64':
      if (mediaType.startsWith('image/')) return [{ type: 'image', data: data.base64, mimeType: mediaType }];
      if (mediaType.startsWith('audio/')) return [{ type: 'audio', data: data.base64, mimeType: mediaType }];
      return [{ type: 'resource', resource: { uri, mimeType: mediaType, blob: data.base64 } }];
    case 'text':
      return [{ type: 'resource', resource: { uri, mimeType: mediaType, text: data.text } }];
    case 'url':
      return [{ type: 'resource_link', uri: data.url, name, mimeType: mediaType }];
    default:
      return [{ type: 'text', text: JSON.stringify(data) }];
  }
}

function textOfError(output: ToolResultOutput): string {
  switch (output.type) {
    case 'error-text':
    case 'text':
      return output.value;
    case 'error-json':
    case 'json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? 'The call was denied.';
    default:
      return 'The tool failed.';
  }
}
