import type { LanguageModelV4Message } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { needsOf } from './capabilities.ts';

const system: LanguageModelV4Message = { role: 'system', content: 'You are terse.' };
const user = (text: string): LanguageModelV4Message => ({ role: 'user', content: [{ type: 'text', text }] });
const call = (id: string): LanguageModelV4Message => ({
  role: 'assistant',
  content: [{ type: 'tool-call', toolCallId: id, toolName: 'echo', input: { text: id } }],
});
const result = (id: string, value: string): LanguageModelV4Message => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'echo', output: { type: 'text', value } }],
});
const image: LanguageModelV4Message = {
  role: 'user',
  content: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } }],
};

// Fresh objects: nothing remembered about them, so the sizes are computed from scratch.
const fresh = (prompt: LanguageModelV4Message[]) => needsOf({ prompt: structuredClone(prompt) });

describe('needsOf', () => {
  it('estimates 4 characters a token, plus tools and maxOutputTokens', () => {
    const tools = [{ type: 'function' as const, name: 'echo', inputSchema: { type: 'object' as const } }];
    const needs = needsOf({ prompt: [system, user('x'.repeat(400))], tools, maxOutputTokens: 50 });
    const characters = 'You are terse.'.length + 400 + JSON.stringify(tools[0]).length;
    expect(needs).toEqual({ tools: true, images: false, contextTokens: Math.ceil(characters / 4) + 50 });
  });

  it('gives the same answer for a prompt that grows step by step as for a fresh copy of it', () => {
    const prompt: LanguageModelV4Message[] = [system, user('go')];
    for (let step = 0; step < 30; step++) {
      expect(needsOf({ prompt: prompt.slice() })).toEqual(fresh(prompt));
      prompt.push(call(`c${step}`), result(`c${step}`, 'r'.repeat(step * 10)));
    }
    expect(needsOf({ prompt: prompt.slice() })).toEqual(fresh(prompt));
  });

  it('notices an image in a later message, and a history that was replaced by a shorter one', () => {
    const prompt: LanguageModelV4Message[] = [system, user('go'), call('a'), result('a', 'y'.repeat(4000))];
    const long = needsOf({ prompt });
    expect(needsOf({ prompt: [...prompt, image] })).toMatchObject({ images: true });
    const compressed = needsOf({ prompt: [system, user('go'), user('summary of earlier steps')] });
    expect(compressed.contextTokens).toBeLessThan(long.contextTokens - 900);
    expect(compressed).toEqual(fresh([system, user('go'), user('summary of earlier steps')]));
  });

  it('handles an empty prompt', () => {
    expect(needsOf({ prompt: [] })).toEqual({ tools: false, images: false, contextTokens: 0 });
  });
});
