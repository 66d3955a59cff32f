import { AGENCY_OPTIONS_KEY } from '../model/prompt-refs.ts';
import { builtinPromptSet } from '../prompts/builtin-prompts.ts';
import type { PromptSet } from '../prompts/prompt-set.ts';
import { errorMessage } from '../core/errors.ts';
import type { Message, ToolMessage, ToolResultPart } from '../core/messages.ts';
import { toV4Prompt } from '../core/messages-v4-prompt.ts';
import type { ModelCaller } from '../model/call-model.ts';
import { type RunState, messageChars } from './run-state.ts';

/** The text that marks a compressed tool result. */
export const COMPRESSED_MARKER = '[compressed]';

/** What a compression attempt did. */
export type CompressionOutcome =
  | { compressed: false; reason: 'nothing-old' }
  | {
      compressed: true;
      resultCount: number;
      beforeChars: number;
      afterChars: number;
      response: Awaited<ReturnType<ModelCaller['generate']>>;
    }
  | { compressed: false; reason: 'failed'; warning: string };

/**
 * Summarises the tool results older than the last `keepIterations` iterations with one model call, and puts the
 * summary in their place. Every tool call keeps a matching result, so the history stays valid for any provider.
 * A failed summary leaves the history exactly as it was.
 */
export async function compressHistory(
  state: RunState,
  {
    caller,
    keepIterations = 2,
    signal,
    prompts = builtinPromptSet(),
  }: { caller: ModelCaller; keepIterations?: number; signal?: AbortSignal; prompts?: PromptSet },
): Promise<CompressionOutcome> {
  const cutoff = state.iterationStarts.at(-keepIterations);
  if (cutoff === undefined) return { compressed: false, reason: 'nothing-old' };
  const old: Array<{ messageIndex: number; partIndex: number; part: ToolResultPart }> = [];
  state.messages.forEach((message, messageIndex) => {
    if (messageIndex >= cutoff || message.role !== 'tool') return;
    message.content.forEach((part, partIndex) => {
      if (part.type === 'tool-result' && !isCompressed(part)) old.push({ messageIndex, partIndex, part });
    });
  });
  if (old.length === 0) return { compressed: false, reason: 'nothing-old' };

  const listing = old
    .map(({ part }) => `### ${part.toolName} (${part.toolCallId})\n${renderOutput(part)}`)
    .join('\n\n');
  let response: Awaited<ReturnType<ModelCaller['generate']>>;
  try {
    const instructions = prompts.render('agent.compress');
    response = await caller.generate(
      {
        prompt: toV4Prompt([
          { role: 'system', content: instructions.text },
          { role: 'user', content: [{ type: 'text', text: `Task: ${state.task.input}\n\n${listing}` }] },
        ]),
        providerOptions: { [AGENCY_OPTIONS_KEY]: { prompts: [instructions.ref] } },
      },
      signal ? { signal } : {},
    );
  } catch (error) {
    return {
      compressed: false,
      reason: 'failed',
      warning: `Context compression failed, continuing uncompressed: ${errorMessage(error)}`,
    };
  }
  const summary = response.result.content
    .flatMap((item) => (item.type === 'text' ? [item.text] : []))
    .join('')
    .trim();
  if (summary === '') {
    return {
      compressed: false,
      reason: 'failed',
      warning: 'Context compression returned an empty summary, continuing uncompressed',
    };
  }

  const beforeChars = state.historyChars;
  const last = old.at(-1) as (typeof old)[number];
  const messages: Message[] = [...state.messages];
  for (const entry of old) {
    const text =
      entry === last
        ? `${COMPRESSED_MARKER} Summary of earlier tool results:\n${summary}`
        : `${COMPRESSED_MARKER} Summarised in the result of ${last.part.toolCallId}.`;
    const message = messages[entry.messageIndex] as ToolMessage;
    const content = [...message.content];
    content[entry.partIndex] = { ...entry.part, output: { type: 'text', value: text } };
    messages[entry.messageIndex] = { ...message, content };
  }
  state.messages = messages;
  state.historyChars = messages.reduce((total, message) => total + messageChars(message), 0);
  return { compressed: true, resultCount: old.length, beforeChars, afterChars: state.historyChars, response };
}

function isCompressed(part: ToolResultPart): boolean {
  return part.output.type === 'text' && part.output.value.startsWith(COMPRESSED_MARKER);
}

function renderOutput(part: ToolResultPart): string {
  const { output } = part;
  if (output.type === 'text' || output.type === 'error-text') return output.value;
  if (output.type === 'json' || output.type === 'error-json') return JSON.stringify(output.value);
  if (output.type === 'execution-denied') return `(denied${output.reason ? `: ${output.reason}` : ''})`;
  return output.value.map((item) => (item.type === 'text' ? item.text : `(${item.type})`)).join('\n');
}
