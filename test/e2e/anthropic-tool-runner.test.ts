import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { LLMAgent } from '../../src/agent/llm-agent.ts';
import type { AgentResult } from '../../src/agent/types.ts';
import { addUsage, emptyUsage } from '../../src/core/usage.ts';
import { resolveModel } from '../../src/model/resolve-model.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { fixtureFetch, fixtureText } from '../support/fixture-fetch.ts';

// Ten real Anthropic exchanges recorded by the Anthropic TypeScript SDK's tool runner, served in order through the
// real @ai-sdk/anthropic provider to LLMAgent. See src/model/__fixtures__/README.md.
type Block = {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
};
type Exchange = {
  body: { messages: Array<{ role: string; content: string | Block[] }> };
  response: { content: Block[]; usage: { input_tokens: number; output_tokens: number } };
};
const exchanges = JSON.parse(fixtureText('anthropic/ToolRunner.json')) as Exchange[];

const testTool = defineTool({
  name: 'test_tool',
  description: 'A test tool',
  input: z.object({ value: z.string().optional(), count: z.number().optional(), input: z.string().optional() }),
  effects: 'read',
  execute: ({ count }) => (count === undefined ? 'Tool result' : `Called with ${count}`),
});
const submitAnalysis = defineTool({
  name: 'submit_analysis',
  description: 'Submits an analysis',
  input: z.object({ summary: z.string() }),
  effects: 'write',
  execute: () => 'Analysis submitted',
});

// The recorded requests as plain blocks: string content becomes one text block.
function blocks(content: string | Block[]): Array<Record<string, unknown>> {
  const list = typeof content === 'string' ? [{ type: 'text', text: content }] : content;
  return list.map((block) => {
    if (block.type === 'text') return { type: 'text', text: block.text };
    if (block.type === 'tool_use') return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    const text = typeof block.content === 'string' ? block.content : (block.content as Block[])[0]?.text;
    return { type: 'tool_result', tool_use_id: block.tool_use_id, content: text };
  });
}

describe('LLMAgent on recorded Anthropic tool loops (ToolRunner.json)', () => {
  it('drives every recorded exchange, in order, through the real provider', async () => {
    const fetch = fixtureFetch(
      exchanges.map((exchange) => ({
        status: 200,
        body: JSON.stringify(exchange.response),
        contentType: 'application/json',
      })),
    );
    const model = resolveModel('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: 'sk-ant-test' }, fetch });
    const agent = new LLMAgent({ name: 'runner', model, tools: [testTool, submitAnalysis], maxOutputTokens: 1000 });
    const inputs = [0, 2, 4, 6].map((index) => {
      const first = exchanges[index]?.body.messages[0]?.content;
      return typeof first === 'string' ? first : '';
    });
    const results: AgentResult[] = [];
    for (const input of inputs) results.push(await agent.execute({ input }));
    // Exchanges 8 and 9 continue the essay task after the SDK's own compaction; they answer without tools.
    results.push(await agent.execute({ input: 'Continue the essay task from the summary.' }));
    results.push(await agent.execute({ input: 'Write a continuation summary.' }));

    const finalText = (index: number) =>
      exchanges[index]?.response.content.map((block) => block.text ?? '').join('') ?? '';
    expect(results.map((result) => result.output)).toEqual([1, 3, 5, 7, 8, 9].map(finalText));
    expect(results.every((result) => result.finishReason === 'stop')).toBe(true);

    const calls = results.flatMap((result) => result.calls.map((step) => [step.name, step.input, step.output]));
    expect(calls).toEqual([
      ['test_tool', { value: 'test' }, 'Tool result'],
      ['test_tool', { count: 1 }, 'Called with 1'],
      ['test_tool', { count: 2 }, 'Called with 2'],
      ['test_tool', { input: 'test' }, 'Tool result'],
      ['submit_analysis', { summary: expect.stringMatching(/^This 500-word essay explores/) }, 'Analysis submitted'],
    ]);

    const usage = results.reduce((total, result) => addUsage(total, result.usage), emptyUsage());
    expect(usage.inputTokens).toBe(exchanges.reduce((sum, exchange) => sum + exchange.response.usage.input_tokens, 0));
    expect(usage.outputTokens).toBe(
      exchanges.reduce((sum, exchange) => sum + exchange.response.usage.output_tokens, 0),
    );
    expect(usage.costUsd).toBeGreaterThan(0);

    // The follow-up requests agency sent carry the same turns the SDK sent: tool_use blocks and tool_result blocks
    // matched by id, with the same content.
    for (const index of [1, 3, 5]) {
      const sent = fetch.requests[index]?.body as { messages: Array<{ role: string; content: Block[] }> };
      const recorded = exchanges[index]?.body.messages ?? [];
      expect(sent.messages.map((message) => ({ role: message.role, content: blocks(message.content) }))).toEqual(
        recorded.map((message) => ({ role: message.role, content: blocks(message.content) })),
      );
    }
  });
});
