import { AgencyError } from '../core/errors.ts';
import { type Message, type MessagePart, systemMessage, textOf } from '../core/messages.ts';
import { truncateToTokens } from '../core/tokens.ts';
import { oneLine } from './entry-text.ts';

/**
 * How much conversation history one step sees (seed 000, "Seeding Conversation History").
 *
 * - `none`: no history at all.
 * - `seedOnly`: the seed messages, none of this run's messages.
 * - `lastN`: the seeds and the last `n` messages of this run.
 * - `summary`: the seeds and a caller-made summary of this run as one system message of at most `maxTokens`,
 *   instead of the run's messages.
 *
 * `includeTools` keeps tool-call and tool-result parts (unpaired ones are still dropped). Without it they are
 * dropped, and so is every message left with no text, image or file.
 */
export type HistoryPolicy =
  | { mode: 'none' }
  | { mode: 'seedOnly'; includeTools?: boolean }
  | { mode: 'lastN'; n: number; includeTools?: boolean }
  | { mode: 'summary'; maxTokens: number; includeTools?: boolean };

/** The history settings of a TaskSpec (`progress/spec.json`). */
export type SpecHistory = {
  policy: 'none' | 'seedOnly' | 'lastN' | 'summary' | 'includeTools';
  last_n: number;
  summary_max_tokens: number;
};

/** The policy a TaskSpec asks for. Its `includeTools` means `lastN(last_n)` with tool parts kept. */
export function historyPolicyFromSpec({ policy, last_n, summary_max_tokens }: SpecHistory): HistoryPolicy {
  if (policy === 'none' || policy === 'seedOnly') return { mode: policy };
  if (policy === 'lastN') return { mode: 'lastN', n: last_n };
  if (policy === 'summary') return { mode: 'summary', maxTokens: summary_max_tokens };
  return { mode: 'lastN', n: last_n, includeTools: true };
}

/** What {@link renderHistory} works from. */
export type RenderHistoryInput = {
  /** Seed messages, in this order: the agent's, the TaskSpec's, then those of `task/history.jsonl|md`. */
  seed: readonly Message[];
  /** This run's messages so far. */
  session?: readonly Message[];
  policy: HistoryPolicy;
  /** The session summary for the `summary` policy, made by the caller. Without one, no summary is added. */
  summary?: string;
  /** The rendered task context: a seed message whose whole text appears in it is dropped. */
  taskContext?: string;
};

/** The heading of the summary message. */
export const SUMMARY_HEADING = 'Summary of the conversation so far:';

/**
 * The history of one step, under its policy: the seeds (deduped against the task context), then the run's
 * messages or their summary. The result is valid for providers: no orphan tool calls or results, no empty messages.
 *
 * @example
 * renderHistory({ seed, session, policy: { mode: 'lastN', n: 6 }, taskContext })
 */
export function renderHistory({ seed, session = [], policy, summary, taskContext }: RenderHistoryInput): Message[] {
  checkPolicy(policy);
  if (policy.mode === 'none') return [];
  const includeTools = policy.includeTools === true;
  const seeds = dropContainedIn(seed, taskContext);
  let messages: Message[];
  if (policy.mode === 'lastN') {
    const visible = includeTools ? [...session] : stripTools(session);
    messages = [...(includeTools ? seeds : stripTools(seeds)), ...(policy.n === 0 ? [] : visible.slice(-policy.n))];
  } else {
    messages = includeTools ? [...seeds] : stripTools(seeds);
  }
  if (includeTools) messages = pairTools(messages);
  if (policy.mode === 'summary' && summary !== undefined && summary.trim() !== '') {
    messages.push(systemMessage(truncateToTokens(`${SUMMARY_HEADING}\n${summary.trim()}`, policy.maxTokens)));
  }
  return messages;
}

function checkPolicy(policy: HistoryPolicy): void {
  if (policy.mode === 'lastN' && !(Number.isInteger(policy.n) && policy.n >= 0)) {
    throw new AgencyError('invalid_argument', `History policy lastN: "n" must be a non-negative integer`);
  }
  if (policy.mode === 'summary' && !(Number.isInteger(policy.maxTokens) && policy.maxTokens > 0)) {
    throw new AgencyError('invalid_argument', `History policy summary: "maxTokens" must be a positive integer`);
  }
}

/** Drops messages made only of text that appears, whole, in `context` (compared on one line). */
function dropContainedIn(messages: readonly Message[], context: string | undefined): Message[] {
  if (context === undefined || context.trim() === '') return [...messages];
  const haystack = oneLine(context);
  return messages.filter((message) => {
    const onlyText = typeof message.content === 'string' || message.content.every((part) => part.type === 'text');
    const text = oneLine(textOf(message));
    return !(onlyText && text !== '' && haystack.includes(text));
  });
}

/** Removes tool messages and tool parts, then every message with no text, image or file left. */
function stripTools(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role === 'tool') continue;
    if (message.role !== 'assistant') {
      out.push(message);
      continue;
    }
    const content = message.content.filter((part) => part.type !== 'tool-call' && part.type !== 'tool-result');
    if (hasContent(content)) out.push(content.length === message.content.length ? message : { ...message, content });
  }
  return out;
}

/** Keeps only tool calls that have a result and results that have a call, then drops emptied messages. */
function pairTools(messages: readonly Message[]): Message[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' && message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-call') calls.add(part.toolCallId);
      if (part.type === 'tool-result') results.add(part.toolCallId);
    }
  }
  const paired = (part: MessagePart) =>
    part.type === 'tool-call'
      ? results.has(part.toolCallId)
      : part.type === 'tool-result'
        ? calls.has(part.toolCallId)
        : true;
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role === 'assistant') {
      const content = message.content.filter(paired);
      if (content.length === message.content.length) out.push(message);
      else if (hasContent(content) || content.some(isTool)) out.push({ ...message, content });
    } else if (message.role === 'tool') {
      const content = message.content.filter(paired);
      if (content.length === message.content.length) out.push(message);
      else if (content.some(isTool)) out.push({ ...message, content });
    } else {
      out.push(message);
    }
  }
  return out;
}

function isTool(part: { type: string }): boolean {
  return part.type === 'tool-call' || part.type === 'tool-result';
}

function hasContent(parts: ReadonlyArray<{ type: string; text?: string }>): boolean {
  return parts.some(
    (part) => part.type === 'image' || part.type === 'file' || (part.type === 'text' && part.text !== ''),
  );
}
