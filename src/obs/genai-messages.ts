import type { LanguageModelV4Content, LanguageModelV4FinishReason, LanguageModelV4Prompt } from '@ai-sdk/provider';

/** One part of a message in the GenAI conventions' JSON shape (`gen_ai.input.messages` and friends). */
export type GenAiPart =
  | { type: 'text'; content: string }
  | { type: 'reasoning'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown }
  | { type: string };

/** A message in the GenAI conventions' JSON shape. */
export type GenAiMessage = { role: string; parts: GenAiPart[]; finish_reason?: string };

type PromptPart = Exclude<LanguageModelV4Prompt[number]['content'], string>[number];

/** The prompt's user, assistant and tool messages, for `gen_ai.input.messages`. */
export function genAiMessages(prompt: LanguageModelV4Prompt): GenAiMessage[] {
  const messages: GenAiMessage[] = [];
  for (const message of prompt) {
    if (message.role === 'system') continue;
    messages.push({ role: message.role, parts: (message.content as PromptPart[]).map(promptPart) });
  }
  return messages;
}

/** The prompt's system messages, for `gen_ai.system_instructions`. */
export function systemInstructions(prompt: LanguageModelV4Prompt): GenAiPart[] {
  return prompt.flatMap((message) =>
    message.role === 'system' ? [{ type: 'text', content: message.content } satisfies GenAiPart] : [],
  );
}

/** A model's answer, for `gen_ai.output.messages`. */
export function genAiOutput(
  content: readonly LanguageModelV4Content[],
  finishReason: LanguageModelV4FinishReason | undefined,
): GenAiMessage[] {
  const parts = content.map((part): GenAiPart => {
    if (part.type === 'text') return { type: 'text', content: part.text };
    if (part.type === 'reasoning') return { type: 'reasoning', content: part.text };
    if (part.type === 'tool-call')
      return { type: 'tool_call', id: part.toolCallId, name: part.toolName, arguments: parseArguments(part.input) };
    return { type: part.type };
  });
  return [{ role: 'assistant', parts, ...(finishReason ? { finish_reason: finishReason.unified } : {}) }];
}

function promptPart(part: PromptPart): GenAiPart {
  switch (part.type) {
    case 'text':
      return { type: 'text', content: part.text };
    case 'reasoning':
      return { type: 'reasoning', content: part.text };
    case 'tool-call':
      return { type: 'tool_call', id: part.toolCallId, name: part.toolName, arguments: part.input };
    case 'tool-result':
      return { type: 'tool_call_response', id: part.toolCallId, response: part.output };
    default:
      // Files and provider-specific parts are named, not copied: their bytes do not belong on a span.
      return { type: part.type };
  }
}

// A tool call's arguments arrive as JSON text; they are recorded as the value it holds when it parses.
function parseArguments(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
