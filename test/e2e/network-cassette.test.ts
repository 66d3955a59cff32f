import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/types.ts';
import { recordModel } from '../../src/model/cassette/record-model.ts';
import { replayModel } from '../../src/model/cassette/replay-model.ts';
import { resolveModel } from '../../src/model/resolve-model.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';
import { FACT, FINAL, newsroom, newsroomAnswers, PARAGRAPH, TEAM_AGENTS } from '../support/network-team.ts';

let dir: string;
const cassette = (agent: string) => join(dir, `${agent}.jsonl`);
const models = (make: (agent: string) => LanguageModelV4) =>
  Object.fromEntries(TEAM_AGENTS.map((agent) => [agent, make(agent)])) as Parameters<typeof newsroom>[0];

// Records every agent's model calls over real HTTP, then stops the server: the tests replay the cassettes only.
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agency-network-'));
  const local = await startOpenAICompatibleServer(newsroomAnswers);
  try {
    const live = newsroom(
      models((agent) => recordModel(resolveModel(`openai-compatible:${local.url}#local-model`), cassette(agent))),
    );
    const recorded = await live.execute({ input: 'Write a paragraph on how long the Rhine is' });
    expect(recorded.output).toBe(FINAL);
    expect(local.requests()).toBe(6);
  } finally {
    local.server.close();
  }
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a network of two sub-agents, replayed from cassettes', () => {
  it('delegates to both, nests their events in its stream and rolls their usage into its own', async () => {
    const team = newsroom(models((agent) => replayModel(cassette(agent))));
    const stream = team.stream({ input: 'Write a paragraph on how long the Rhine is' });
    const events: AgentEvent[] = [];
    for await (const event of stream) events.push(event);
    const result = await stream.result;

    expect(result.finishReason).toBe('stop');
    expect(result.output).toBe(FINAL);
    // 150 tokens a call: the router made 3, the researcher 2, the writer 1.
    expect(result.usage.totalTokens).toBe(900);
    expect(result.calls.map((call) => [call.type, call.name, call.usage.totalTokens, call.output])).toEqual([
      ['agent', 'researcher', 300, `Fact: ${FACT}`],
      ['agent', 'writer', 150, PARAGRAPH],
    ]);

    const trace = events.flatMap((event) => {
      if (event.type === 'agent-start' || event.type === 'agent-finish')
        return [`${event.type} ${event.path.join('/')}`];
      if (event.type === 'agent-event' && event.event.type === 'tool-call-result')
        return [`${event.path.join('/')}: ${event.event.toolName} -> ${String(event.event.output)}`];
      return [];
    });
    expect(trace).toEqual([
      'agent-start newsroom/researcher',
      `newsroom/researcher: lookup -> ${FACT}`,
      'agent-finish newsroom/researcher',
      'agent-start newsroom/writer',
      'agent-finish newsroom/writer',
    ]);
    const starts = events.filter((event) => event.type === 'agent-start');
    expect(starts.every((event) => event.parentRunId === result.id && event.depth === 1)).toBe(true);
    expect(starts[1]?.input).toContain(`Context:\nFact: ${FACT}`);
    const finishes = events.filter((event) => event.type === 'agent-finish');
    expect(finishes.map((event) => [event.agent, event.finishReason, event.usage.totalTokens])).toEqual([
      ['researcher', 'stop', 300],
      ['writer', 'stop', 150],
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', result });
  });
});
