// Claude Code's `--output-format stream-json --verbose` lines, mapped onto executor events. The shapes are those of the
// recordings in __fixtures__/ (Claude Code 2.1.332): `system` (init, api_retry), `assistant` and `user` messages
// whose content blocks carry text, tool_use and tool_result, and one final `result`.
import type { ParsedRun } from '../cli/cli-result.ts';
import type { ExecutorEvent } from '../executor.ts';
import { classifyClaudeResult, type ClaudeResultLine } from './claude-errors.ts';

type Block = {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  is_error?: boolean;
};
type Line = Omit<Partial<ClaudeResultLine>, 'type'> & {
  type?: string;
  subtype?: string;
  message?: { model?: string; content?: Block[] | string };
  attempt?: number;
  max_retries?: number;
  error?: string;
  error_status?: number | null;
};

/** What the stream said once it ended: {@link ParsedRun} plus Claude Code's own counts. */
export type ClaudeRun = ParsedRun & {
  /** The final `result` line's `num_turns`, when it came. */
  numTurns?: number;
  /** The session the CLI reported (`system/init`, `result`). */
  sessionId?: string;
};

/**
 * Parses Claude Code's stream-json line by line: `handle` emits events as lines arrive (lines that are not JSON are
 * skipped; the raw output keeps them), `finish` says what the run came to, also for a run cut short.
 */
export function createClaudeStream(onEvent: (event: ExecutorEvent) => void) {
  const toolNames = new Map<string, string>();
  const texts: string[] = [];
  let result: ClaudeResultLine | undefined;
  let sessionId: string | undefined;
  const handle = (raw: string) => {
    const line = parseLine(raw);
    if (line === undefined) return;
    if (typeof line.session_id === 'string') sessionId = line.session_id;
    if (line.type === 'system' && line.subtype === 'api_retry') onEvent(retryWarning(line));
    else if (line.type === 'assistant') assistant(line, toolNames, texts, onEvent);
    else if (line.type === 'user') toolResults(line, toolNames, onEvent);
    else if (line.type === 'result') {
      result = line as ClaudeResultLine; // its `type` is 'result'
      resultEvents(result, onEvent);
    }
  };
  const finish = (): ClaudeRun => {
    const output = typeof result?.result === 'string' ? result.result : texts.join('\n\n');
    if (result === undefined) return { output, ...(sessionId ? { sessionId } : {}) };
    const usage = result.usage;
    return {
      output,
      ...(sessionId ? { sessionId } : {}),
      ...(usage ? { usage: { input: inputTokens(usage), output: usage.output_tokens ?? 0 } } : {}),
      ...(typeof result.total_cost_usd === 'number' ? { costUsd: result.total_cost_usd } : {}),
      ...(typeof result.num_turns === 'number' ? { numTurns: result.num_turns } : {}),
      ...(isFailure(result) ? { error: classifyClaudeResult(result) } : {}),
    };
  };
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

const blocksOf = (line: Line): Block[] => (Array.isArray(line.message?.content) ? line.message.content : []);

function assistant(line: Line, toolNames: Map<string, string>, texts: string[], onEvent: (e: ExecutorEvent) => void) {
  // A `<synthetic>` message is Claude Code's own wording of an API error; the result line carries it as the error.
  if (line.message?.model === '<synthetic>') return;
  for (const block of blocksOf(line)) {
    if (block.type === 'text' && typeof block.text === 'string') {
      texts.push(block.text);
      onEvent({ type: 'text', text: block.text });
    } else if (block.type === 'tool_use' && typeof block.name === 'string') {
      if (block.id) toolNames.set(block.id, block.name);
      onEvent({ type: 'tool.call', tool: block.name, input: block.input, ...(block.id ? { id: block.id } : {}) });
    }
  }
}

function toolResults(line: Line, toolNames: Map<string, string>, onEvent: (e: ExecutorEvent) => void) {
  for (const block of blocksOf(line)) {
    if (block.type !== 'tool_result') continue;
    const id = block.tool_use_id;
    const tool = (id && toolNames.get(id)) || 'unknown';
    onEvent({ type: 'tool.result', tool, ok: block.is_error !== true, ...(id ? { id } : {}) });
  }
}

function retryWarning(line: Line): ExecutorEvent {
  const status = typeof line.error_status === 'number' ? ` (HTTP ${line.error_status})` : '';
  const attempt = `${String(line.attempt ?? '?')}/${String(line.max_retries ?? '?')}`;
  return {
    type: 'warning',
    message: `Claude Code retries the API, attempt ${attempt}: ${line.error ?? 'error'}${status}`,
  };
}

function resultEvents(result: ClaudeResultLine, onEvent: (e: ExecutorEvent) => void) {
  if (result.usage) {
    onEvent({
      type: 'usage',
      input: inputTokens(result.usage),
      output: result.usage.output_tokens ?? 0,
      ...(typeof result.total_cost_usd === 'number' ? { costUsd: result.total_cost_usd } : {}),
    });
  }
  for (const denial of result.permission_denials ?? []) {
    onEvent({
      type: 'warning',
      message: `Claude Code denied itself ${denial.tool_name ?? 'a tool'}: permission denied`,
    });
  }
}

// Anthropic counts cached prompt tokens apart from `input_tokens`; the task's usage counts every prompt token.
function inputTokens(usage: NonNullable<ClaudeResultLine['usage']>): number {
  return (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
}

const isFailure = (result: ClaudeResultLine) => result.is_error === true || result.subtype !== 'success';
