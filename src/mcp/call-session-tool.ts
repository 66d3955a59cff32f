import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { ToolContext } from '../tools/define-tool.ts';
import type { McpSession } from './client-session.ts';
import { type ConnectMcpOptions, MAX_TIMER_MS } from './connect-options.ts';
import type { McpCallFunction } from './mcp-tool.ts';

export type McpCall = Parameters<McpCallFunction>[0];

/** Where a call's progress notifications go, labelled with the server's name. */
export type ProgressReporting = { server: string; onProgress: ConnectMcpOptions['onProgress'] };

/** Sends one tool call on a session and forwards its progress notifications to `onProgress`. */
export async function callSessionTool(
  session: McpSession,
  call: McpCall,
  context: ToolContext,
  reporting: ProgressReporting,
): Promise<CallToolResult> {
  const result = await session.client.callTool({ name: call.mcpName, arguments: call.args }, undefined, {
    signal: context.signal,
    // The tool's own timeout is enforced by runToolCall through the signal, which cancels the request.
    timeout: MAX_TIMER_MS,
    ...progressHandler(call.agencyName, context, reporting),
  });
  // Servers on the 2024-10-07 protocol answer with `toolResult` instead of content.
  if (!('content' in result)) return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
  return result as CallToolResult;
}

function progressHandler(tool: string, context: ToolContext, { server, onProgress }: ProgressReporting) {
  if (!onProgress) return {};
  return {
    onprogress: ({ progress, total, message }: Progress) => {
      try {
        onProgress({
          server,
          tool,
          toolCallId: context.toolCallId,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        });
      } catch {
        // A listener's failure must not fail the call.
      }
    },
  };
}
