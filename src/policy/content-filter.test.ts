import { describe, expect, it } from 'vitest';
import type { Message } from '../core/messages.ts';
import { createRedactor } from '../core/redact.ts';
import { contentFilter, memoryWriteFilter } from './content-filter.ts';
import { createPolicy } from './create-policy.ts';
import type { PolicyRequest } from './policy-types.ts';

const CARD = /\b\d{4}(?:[ -]?\d{4}){3}\b/;
const tool = { name: 'lookup', effects: 'read' as const };

describe('contentFilter', () => {
  it('blocks tool input that matches, naming the filter and not the content', () => {
    const rule = contentFilter({ id: 'cards', stages: ['tool-input'], patterns: [CARD], action: 'block' });
    expect(rule.check({ kind: 'tool-call', tool, input: { q: ['pay 4111 1111 1111 1111'] } })).toEqual({
      effect: 'deny',
      reason: 'input of tool "lookup" matches content filter "cards"',
    });
    expect(rule.check({ kind: 'tool-call', tool, input: { q: 'pay 4111' } })).toBeUndefined();
  });

  it('redacts every match in tool output as the model sees it', () => {
    const rule = contentFilter({ id: 'cards', stages: ['tool-output'], patterns: [CARD], action: 'redact' });
    const output = { type: 'json', value: { a: '4111 1111 1111 1111', b: ['x 4242-4242-4242-4242 y'], n: 4 } };
    expect(rule.check({ kind: 'tool-output', tool, output })).toEqual({
      effect: 'modify',
      patch: { type: 'json', value: { a: '[REDACTED:cards]', b: ['x [REDACTED:cards] y'], n: 4 } },
      reason: 'output of tool "lookup" redacted by "cards"',
    });
  });

  it('redacts model input content without touching ids, types or tool names', () => {
    const rule = contentFilter({
      id: 'word',
      stages: ['model-input'],
      patterns: [/tool/gi],
      action: 'redact',
      replacement: '#',
    });
    const messages: Message[] = [
      { role: 'system', content: 'Use a tool.' },
      { role: 'user', content: [{ type: 'text', text: 'tool please' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'tool_1', toolName: 'tool', input: { q: 'tool' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'tool_1', toolName: 'tool', output: { type: 'text', value: 'a tool' } },
        ],
      },
    ];
    const verdict = rule.check({ kind: 'model-input', messages });
    expect(verdict).toMatchObject({ effect: 'modify' });
    expect((verdict as { patch: unknown }).patch).toEqual([
      { role: 'system', content: 'Use a #.' },
      { role: 'user', content: [{ type: 'text', text: '# please' }] },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'tool_1', toolName: 'tool', input: { q: '#' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'tool_1', toolName: 'tool', output: { type: 'text', value: 'a #' } },
        ],
      },
    ]);
  });

  it('a test function blocks; a redactor finds and redacts secrets', () => {
    const long = contentFilter({
      id: 'long',
      stages: ['model-input'],
      test: (text) => text.length > 20,
      action: 'block',
    });
    expect(long.check({ kind: 'model-input', messages: [{ role: 'system', content: 'x'.repeat(21) }] })).toMatchObject({
      effect: 'deny',
    });
    const secrets = contentFilter({
      id: 'secrets',
      stages: ['tool-output'],
      redactor: createRedactor(),
      action: 'redact',
    });
    const output = { type: 'text', value: 'key sk-proj-AbCdEfGhIjKlMnOpQrSt01' };
    expect(secrets.check({ kind: 'tool-output', tool, output })).toMatchObject({
      patch: { type: 'text', value: 'key [REDACTED:openai]' },
    });
  });

  it('only looks at its stages, tools and scopes', () => {
    const rule = contentFilter({
      id: 'x',
      stages: ['tool-input'],
      patterns: [/x/],
      action: 'block',
      tools: ['http_*'],
    });
    expect(rule.check({ kind: 'tool-call', tool, input: 'x' })).toBeUndefined();
    expect(
      rule.check({ kind: 'tool-output', tool: { name: 'http_get', effects: 'network' }, output: 'x' }),
    ).toBeUndefined();
    expect(rule.check({ kind: 'tool-call', tool: { name: 'http_get', effects: 'network' }, input: 'x' })).toMatchObject(
      { effect: 'deny' },
    );
  });

  it('refuses configurations that cannot work', () => {
    expect(() => contentFilter({ id: 'x', stages: ['tool-input'], action: 'block' })).toThrow(
      /give "patterns", "test" or "redactor"/,
    );
    expect(() => contentFilter({ id: 'x', stages: ['tool-input'], test: () => true, action: 'redact' })).toThrow(
      /can only block/,
    );
  });

  it('is not fooled by global or sticky regex state between calls', () => {
    const rule = contentFilter({ id: 'g', stages: ['tool-input'], patterns: [/secret/gy], action: 'block' });
    for (let i = 0; i < 3; i++)
      expect(rule.check({ kind: 'tool-call', tool, input: 'a secret' })).toMatchObject({ effect: 'deny' });
  });
});

describe('memoryWriteFilter', () => {
  const request = (scope: string, entry: unknown): PolicyRequest => ({ kind: 'memory-write', scope, entry });

  it('redacts or drops memory writes in the chosen scopes', () => {
    const policy = createPolicy({
      rules: [
        memoryWriteFilter({ id: 'no-secrets', redactor: createRedactor(), action: 'redact' }),
        memoryWriteFilter({ id: 'no-cards-in-org', patterns: [CARD], action: 'block', scopes: 'org:*' }),
      ],
    });
    expect(policy.evaluate(request('user:ann', { text: 'token ghp_AbCdEfGhIjKlMnOpQrSt0123' }))).toMatchObject({
      outcome: 'modify',
      patch: { text: 'token [REDACTED:github]' },
    });
    expect(policy.evaluate(request('org:acme', { text: '4111 1111 1111 1111' }))).toMatchObject({
      outcome: 'deny',
      reason: 'memory write to "org:acme" matches content filter "no-cards-in-org"',
    });
    expect(policy.evaluate(request('user:ann', { text: '4111 1111 1111 1111' })).outcome).toBe('allow');
  });
});
