import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { defineTool } from '../tools/define-tool.ts';
import { LLMAgent } from './llm-agent.ts';
import { halt, type Processor } from './processors.ts';

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a secret up',
  input: z.object({ key: z.string() }),
  effects: 'read',
  execute: ({ key }) => `value of ${key}: sk-secret-123`,
});

describe('processors', () => {
  it('pre can rewrite the history before each model call', async () => {
    const model = new ScriptedModel(['ok']);
    const redact: Processor = {
      pre: ({ messages }) => ({
        messages: messages.map((message) =>
          message.role === 'user'
            ? {
                ...message,
                content: message.content.map((part) =>
                  part.type === 'text' ? { ...part, text: part.text.replace(/\d{4}-\d{4}/g, '[card]') } : part,
                ),
              }
            : message,
        ),
      }),
    };
    await new LLMAgent({ name: 'a', model, processors: [redact] }).execute({ input: 'Charge 1234-5678 please' });
    expect(model.calls[0]?.options.prompt.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: 'Charge [card] please' }],
    });
  });

  it('post can replace the model response, e.g. to drop a tool call', async () => {
    const model = new ScriptedModel([{ text: 'Let me look.', toolCalls: [{ name: 'lookup', input: { key: 'a' } }] }]);
    const noTools: Processor = {
      post: ({ response }) => ({
        response: { ...response, content: response.content.filter((part) => part.type !== 'tool-call') },
      }),
    };
    const result = await new LLMAgent({ name: 'a', model, tools: [lookup], processors: [noTools] }).execute({
      input: 'x',
    });
    expect(result).toMatchObject({ output: 'Let me look.', finishReason: 'stop', calls: [] });
  });

  it('postTool can rewrite a tool result before the model sees it', async () => {
    const model = new ScriptedModel([{ toolCalls: [{ name: 'lookup', input: { key: 'a' } }] }, 'done']);
    const scrub: Processor = {
      postTool: ({ outcome }) => ({
        outcome: {
          ...outcome,
          modelOutput: { type: 'text', value: String(outcome.output).replace(/sk-[\w-]+/g, '[redacted]') },
        },
      }),
    };
    await new LLMAgent({ name: 'a', model, tools: [lookup], processors: [scrub] }).execute({ input: 'x' });
    expect(JSON.stringify(model.calls[1]?.options.prompt)).not.toContain('sk-secret');
    expect(JSON.stringify(model.calls[1]?.options.prompt)).toContain('[redacted]');
  });

  it('preTool can block a call, which becomes an error result, or change its arguments', async () => {
    const model = new ScriptedModel([
      {
        toolCalls: [
          { name: 'lookup', input: { key: 'prod' } },
          { name: 'lookup', input: { key: 'Staging' } },
        ],
      },
      'done',
    ]);
    const gate: Processor = {
      preTool: ({ call }) => {
        const key = (call.input as { key: string }).key;
        if (key === 'prod') return { block: 'production keys are off limits' };
        return { call: { ...call, input: { key: key.toLowerCase() } } };
      },
    };
    const result = await new LLMAgent({ name: 'a', model, tools: [lookup], processors: [gate] }).execute({
      input: 'x',
    });
    expect(result.calls.map((step) => [step.error?.code, step.output])).toEqual([
      ['policy_denied', undefined],
      [undefined, 'value of staging: sk-secret-123'],
    ]);
    expect(JSON.stringify(model.calls[1]?.options.prompt)).toContain('was blocked: production keys are off limits');
  });

  it.each(['pre', 'post', 'preTool', 'postTool'] as const)(
    '%s can halt the run with a canned answer',
    async (stage) => {
      const model = new ScriptedModel([{ toolCalls: [{ name: 'lookup', input: { key: 'a' } }] }, 'never']);
      const processor: Processor = { [stage]: () => halt(`Stopped by ${stage}.`) };
      const result = await new LLMAgent({ name: 'a', model, tools: [lookup], processors: [processor] }).execute({
        input: 'x',
      });
      expect(result).toMatchObject({ finishReason: 'halted', output: `Stopped by ${stage}.` });
      expect(result.messages.at(-1)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: `Stopped by ${stage}.` }],
      });
      expect(model.calls.length).toBe(stage === 'pre' ? 0 : 1);
    },
  );

  it('runs processors in order, each seeing the previous change', async () => {
    const model = new ScriptedModel(['ok']);
    const seen: string[] = [];
    const tag = (name: string): Processor => ({
      pre: ({ messages }) => {
        seen.push(`${name}:${messages.length}`);
        return { messages: [...messages, { role: 'user', content: [{ type: 'text', text: name }] }] };
      },
    });
    await new LLMAgent({ name: 'a', model, processors: [tag('first'), tag('second')] }).execute({ input: 'x' });
    expect(seen).toEqual(['first:1', 'second:2']);
    expect(model.calls[0]?.options.prompt).toHaveLength(3);
  });
});
