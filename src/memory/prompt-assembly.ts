import { type Message, type ProviderOptions, type UserMessage, userMessage } from '../core/messages.ts';

/** A text segment, or a block from the memory manager (its `text` is used). */
export type PromptSegment = string | { text: string };

/** The parts of one step's prompt. */
export type AssemblePromptInput = {
  /** The agent's identity and instructions. */
  persona: string;
  /** The pinned memory block (`MemoryManager.buildPinned`). */
  pinned?: PromptSegment;
  /** The rendered task context (findings, plan summary, artifact highlights). */
  taskContext?: PromptSegment;
  /** The phase recall block (`MemoryManager.buildPhase`). */
  phaseRecall?: PromptSegment;
  /** The seeded history, already rendered under the step's policy (`renderHistory`). */
  history?: readonly Message[];
  /** The step's request: text, or a user message with parts. */
  ask: string | UserMessage;
  /**
   * Provider options set on the last message of the stable prefix (persona + pinned memory), e.g.
   * `{ anthropic: { cacheControl: { type: 'ephemeral' } } }` to mark a cache breakpoint.
   */
  prefixProviderOptions?: ProviderOptions;
};

/**
 * The messages of one step, in DESIGN §4's fixed order: persona (system), pinned memory (system), task context
 * (system), phase recall (system), the seeded history, then the ask (user). Empty segments are left out. Segments are
 * used byte for byte, so the persona and pinned messages form a prefix that stays identical across steps while the
 * persona and the pinned block do not change; that prefix is what provider prompt caches reuse.
 *
 * All system segments come first, so a provider that accepts system text only at the start of the prompt takes
 * them; a `system` message inside the seeded history may be refused by such providers.
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
  prefixProviderOptions,
}: AssemblePromptInput): Message[] {
  const prefix = [persona, pinned].map(textOfSegment).filter((text) => text !== '');
  const messages: Message[] = prefix.map((content, index) =>
    index === prefix.length - 1 && prefixProviderOptions !== undefined
      ? { role: 'system', content, providerOptions: prefixProviderOptions }
      : { role: 'system', content },
  );
  for (const segment of [taskContext, phaseRecall]) {
    const content = textOfSegment(segment);
    if (content !== '') messages.push({ role: 'system', content });
  }
  messages.push(...history);
  if (typeof ask !== 'string') messages.push(ask);
  else if (ask.trim() !== '') messages.push(userMessage(ask));
  return messages;
}

/** How many leading messages of an assembled prompt form its stable prefix (persona and pinned memory). */
export function stablePrefixLength({ persona, pinned }: Pick<AssemblePromptInput, 'persona' | 'pinned'>): number {
  return [persona, pinned].map(textOfSegment).filter((text) => text !== '').length;
}

function textOfSegment(segment: PromptSegment | undefined): string {
  if (segment === undefined) return '';
  const text = typeof segment === 'string' ? segment : segment.text;
  return text.trim() === '' ? '' : text;
}
