// `codex exec --json` lines, mapped onto executor events. The shapes are those of the recordings in __fixtures__/
// (Codex 0.169.0): thread.started, turn.started, item.started / item.completed (agent_message, command_execution,
// file_change, mcp_tool_call, web_search, error), turn.completed with usage, turn.failed, and top-level `error`s (a
// retry, a reconnect).
import { classifyErrorText, type ParsedRun } from '../cli/cli-result.ts';
import type { ExecutorEvent } from '../executor.ts';

type Item = {
  id?: string;
  type?: string;
  text?: string;
  message?: string;
  command?: string;
  exit_code?: number | null;
  status?: string;
  changes?: unknown;
  server?: string;
  tool?: string;
  arguments?: unknown;
  error?: unknown;
  query?: string;
};
type Line = {
  type?: string;
  thread_id?: string;
  item?: Item;
  message?: string;
  error?: { message?: string };
  usage?: { input_tokens?: number; output_tokens?: number };
};

/** What the stream said once it ended: {@link ParsedRun} plus Codex's thread id, which `codex exec resume` takes. */
export type CodexRun = ParsedRun & { threadId?: string };

/** Parses `codex exec --json` line by line: `handle` emits events as lines arrive, `finish` says what it came to. */
export function createCodexStream(onEvent: (event: ExecutorEvent) => void) {
  const called = new Set<string>();
  const usage = { input: 0, output: 0, seen: false };
  let threadId: string | undefined;
  let answer = '';
  let failure: string | undefined;
  let lastError: string | undefined;
  const handle = (raw: string) => {
    const line = parseLine(raw);
    if (line?.type === 'thread.started' && line.thread_id) threadId = line.thread_id;
    else if (line?.type === 'item.started' && line.item) toolCall(line.item, called, onEvent);
    else if (line?.type === 'item.completed' && line.item) {
      const text = completed(line.item, called, onEvent);
      if (text !== undefined) answer = text;
    } else if (line?.type === 'error' && line.message) {
      lastError = line.message;
      onEvent({ type: 'warning', message: `Codex: ${line.message}` });
    } else if (line?.type === 'turn.failed') failure = line.error?.message ?? lastError ?? 'the turn failed';
    else if (line?.type === 'turn.completed' && line.usage) {
      usage.input += line.usage.input_tokens ?? 0;
      usage.output += line.usage.output_tokens ?? 0;
      usage.seen = true;
      onEvent({ type: 'usage', input: usage.input, output: usage.output });
    }
  };
  const finish = (): CodexRun => ({
    output: answer,
    ...(threadId ? { threadId } : {}),
    ...(usage.seen ? { usage: { input: usage.input, output: usage.output } } : {}),
    ...(failure === undefined
      ? {}
      : { error: { type: classifyErrorText(failure) ?? 'executor_error', message: failure } }),
  });
  return { handle, finish };
}

function parseLine(raw: string): Line | undefined {
  if (!raw.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(raw) as Line | null;
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

// The tool an item stands for, and its input; undefined for items that are not tool uses.
function toolOf(item: Item): { tool: string; input: unknown } | undefined {
  if (item.type === 'command_execution') return { tool: 'shell', input: { command: item.command } };
  if (item.type === 'file_change') return { tool: 'apply_patch', input: { changes: item.changes } };
  if (item.type === 'mcp_tool_call')
    return { tool: `${item.server ?? 'mcp'}.${item.tool ?? '?'}`, input: item.arguments };
  if (item.type === 'web_search') return { tool: 'web_search', input: { query: item.query } };
  return undefined;
}

function toolCall(item: Item, called: Set<string>, onEvent: (event: ExecutorEvent) => void): void {
  const tool = toolOf(item);
  if (tool === undefined || item.id === undefined || called.has(item.id)) return;
  called.add(item.id);
  onEvent({ type: 'tool.call', tool: tool.tool, input: tool.input, id: item.id });
}

// Emits what a completed item means; returns the text of an agent message, the answer so far.
function completed(item: Item, called: Set<string>, onEvent: (event: ExecutorEvent) => void): string | undefined {
  if (item.type === 'agent_message' && typeof item.text === 'string') {
    onEvent({ type: 'text', text: item.text });
    return item.text;
  }
  if (item.type === 'error' && item.message) {
    onEvent({ type: 'warning', message: `Codex: ${item.message}` });
    return undefined;
  }
  const tool = toolOf(item);
  if (tool === undefined) return undefined;
  toolCall(item, called, onEvent); // items that arrive completed only (a file change) were never started
  const ok = item.status === 'completed' && (item.exit_code ?? 0) === 0 && !item.error;
  onEvent({ type: 'tool.result', tool: tool.tool, ok, ...(item.id ? { id: item.id } : {}) });
  return undefined;
}
