// A small newsroom network (a router over a researcher and a writer) and the answers an OpenAI-compatible test
// server gives each of its agents, so its model calls can be recorded over real HTTP and replayed from cassettes.
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { z } from 'zod';
import { LLMAgent } from '../../src/agent/llm-agent.ts';
import { createNetwork, type Network } from '../../src/compose/network/network.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { type ChatMessage, type PhaseAnswers, textOf } from './openai-compatible-server.ts';

/** The agents of the team, each with its own model (and cassette). */
export const TEAM_AGENTS = ['newsroom', 'researcher', 'writer'] as const;

/** The fact the researcher's tool returns. */
export const FACT = 'The Rhine is 1,230 km long.';
/** The writer's paragraph, and the router's final answer. */
export const PARAGRAPH = 'The Rhine runs 1,230 km from the Alps to the North Sea.';
export const FINAL = `Here is the paragraph: ${PARAGRAPH}`;

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks up a fact about a topic',
  input: z.object({ topic: z.string() }),
  effects: 'read',
  execute: () => FACT,
});

/** Builds the team, with a model per agent. */
export function newsroom(models: Record<(typeof TEAM_AGENTS)[number], LanguageModelV4>): Network {
  const researcher = new LLMAgent({
    name: 'researcher',
    description: 'Finds facts with the lookup tool',
    instructions: 'You are the researcher. Find the facts asked for.',
    model: models.researcher,
    tools: [lookup],
  });
  const writer = new LLMAgent({
    name: 'writer',
    description: 'Writes one paragraph from facts it is given',
    instructions: 'You are the writer. Write one paragraph.',
    model: models.writer,
  });
  return createNetwork({
    name: 'newsroom',
    description: 'Researches and writes',
    model: models.newsroom,
    agents: [researcher, writer],
  });
}

/** What the server answers: it tells the agents apart by their system prompts. */
export const newsroomAnswers: PhaseAnswers = (_phase, turn, messages) => {
  const system = textOf(messages[0] as ChatMessage);
  if (system.includes('You are the researcher'))
    return turn === 0 ? [{ name: 'lookup', arguments: { topic: 'Rhine' } }] : `Fact: ${lastToolText(messages)}`;
  if (system.includes('You are the writer')) return PARAGRAPH;
  if (turn === 0) return [{ name: 'researcher', arguments: { task: 'How long is the Rhine?' } }];
  if (turn === 1)
    return [{ name: 'writer', arguments: { task: 'Write a paragraph on the Rhine', context: lastToolText(messages) } }];
  return FINAL;
};

function lastToolText(messages: ChatMessage[]): string {
  const tool = messages.findLast((message) => message.role === 'tool');
  return tool ? textOf(tool) : '';
}
