import type { Message, ProviderOptions, TextPart, UserMessage } from '../core/messages.ts';

/** A text segment, or a block from the memory manager (its `text` is used). */
export type PromptSegment = string | { text: string };

/**
 * The provider options that mark a prompt-cache breakpoint. Anthropic caches a prompt's prefix only up to a block
 * marked `cache_control`; OpenAI (and DeepSeek) cache every long prefix automatically and need no mark, and every
 * provider ignores another's options.
 */
export const CACHE_BREAKPOINT: ProviderOptions = { anthropic: { cacheControl: { type: 'ephemeral' } } };

/** The parts of one step's prompt. */
export type AssemblePromptInput = {
  /** The agent's identity and instructions; empty for none. */
  persona: string;
  /** The pinned memory block (`MemoryManager.buildPinned`). */
  pinned?: PromptSegment | undefined;
  /** The rendered task context (the brief, the input files, the findings). */
  taskContext?: PromptSegment | undefined;
  /** The phase recall block (`MemoryManager.buildPhase`). */
  phaseRecall?: PromptSegment | undefined;
  /** The seeded history, already rendered under the step's policy (`renderHistory`). */
  history?: readonly Message[] | undefined;
  /** The step's request: text, or a user message with parts. Left out when absent or blank. */
  ask?: string | UserMessage | undefined;
  /**
   * The provider options set at the end of the stable prefix (persona and pinned memory) and at the end of the task
   * context, to mark them as prompt-cache breakpoints; `false` sets none.
   * @default CACHE_BREAKPOINT
   */
  cacheBreakpoint?: ProviderOptions | false | undefined;
};

/**
 * The messages of one step, in DESIGN §4's fixed order: persona (system), pinned memory (system), then one user
 * message holding the task context and the phase recall, the seeded history, and the ask. Empty segments are left
 * out, and the others are used byte for byte. The governed runner and `LLMAgent` both build their prompts with it.
 *
 * - **Stable prefix.** Persona and pinned memory stay identical on every step while they do not change; provider
 *   prompt caches reuse them, and the tool definitions the provider sends before them. The end of that prefix, and
 *   the end of the task context (identical across the phases after Gather), carry `cacheBreakpoint`.
 * - **Roles.** Instructions are system messages, all at the start, where every provider accepts them. The task
 *   context and the recall are material to work on (the findings were written from untrusted sources), so they are
 *   user text. A user message of the history that follows them, and an ask that follows a user message, are merged
 *   into it, so the conversation alternates as strict chat templates require.
 *
 * @example
 * assemblePrompt({ persona, pinned, taskContext, phaseRecall, history, ask: 'Draft the plan.' })
 */
export function assemblePrompt({
  persona,
  pinned,
  taskContext,
  phaseRecall,
  history = [],
  ask,
  cacheBreakpoint = CACHE_BREAKPOINT,
}: AssemblePromptInput): Message[] {
  const breakpoint = cacheBreakpoint === false ? {} : { providerOptions: cacheBreakpoint };
  const prefix = [persona, pinned].map(textOfSegment).filter((text) => text !== '');
  const messages: Message[] = prefix.map((content, index) =>
    index === prefix.length - 1 ? { role: 'system', content, ...breakpoint } : { role: 'system', content },
  );
  const context: TextPart[] = [];
  const contextText = textOfSegment(taskContext);
  if (contextText !== '') context.push({ type: 'text', text: contextText, ...breakpoint });
  const recallText = textOfSegment(phaseRecall);
  if (recallText !== '') context.push({ type: 'text', text: recallText });
  if (context.length > 0) messages.push({ role: 'user', content: context });
  for (const [index, message] of history.entries()) {
    if (index === 0) appendMerged(messages, message);
    else messages.push(message);
  }
  if (typeof ask !== 'string' && ask !== undefined) appendMerged(messages, ask);
  else if (ask !== undefined && ask.trim() !== '')
    appendMerged(messages, { role: 'user', content: [{ type: 'text', text: ask }] });
  return messages;
}

/** How many leading messages of an assembled prompt form its stable prefix (persona and pinned memory). */
export function stablePrefixLength({ persona, pinned }: Pick<AssemblePromptInput, 'persona' | 'pinned'>): number {
  return [persona, pinned].map(textOfSegment).filter((text) => text !== '').length;
}

// A user message after a user message joins it, unless either carries message-level provider options, which
// belong to that message alone.
function appendMerged(messages: Message[], message: Message): void {
  const last = messages.at(-1);
  if (
    last?.role === 'user' &&
    message.role === 'user' &&
    last.providerOptions === undefined &&
    message.providerOptions === undefined
  ) {
    messages[messages.length - 1] = { role: 'user', content: [...last.content, ...message.content] };
  } else {
    messages.push(message);
  }
}

function textOfSegment(segment: PromptSegment | undefined): string {
  if (segment === undefined) return '';
  const text = typeof segment === 'string' ? segment : segment.text;
  return text.trim() === '' ? '' : text;
}
