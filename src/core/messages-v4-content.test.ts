import type { LanguageModelV4Content } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { textOf, toolCallsOf } from './messages.ts';
import { assistantMessageToContent, contentToAssistantMessage } from './messages-v4-content.ts';

const signature = { anthropic: { signature: 'EqQBCkYIBxgCKkD' } };

describe('V4 content conversion', () => {
  const content: LanguageModelV4Content[] = [
    { type: 'reasoning', text: 'thinking', providerMetadata: signature },
    {
      type: 'text',
      text: 'Hello',
      citations: [{ source: { type: 'source', sourceType: 'url', id: 's1', url: 'https://a.example' } }],
    },
    { type: 'tool-call', toolCallId: 'call_9', toolName: 'add', input: '{"a":1,"b":2}' },
    { type: 'tool-call', toolCallId: 'call_10', toolName: 'broken', input: '{"a":' },
    { type: 'tool-result', toolCallId: 'srv', toolName: 'search', result: { ok: true }, isError: true },
    { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
    { type: 'source', sourceType: 'url', id: 'src1', url: 'https://b.example', title: 'B' },
    { type: 'tool-approval-request', approvalId: 'ap', toolCallId: 'call_9' },
  ];

  it('parses tool arguments and keeps provider metadata as provider options', () => {
    const message = contentToAssistantMessage(content);
    expect(toolCallsOf(message).map((call) => [call.toolName, call.input, call.inputError])).toEqual([
      ['add', { a: 1, b: 2 }, undefined],
      ['broken', '{"a":', expect.stringMatching(/JSON/)],
    ]);
    expect(message.content[0]).toEqual({ type: 'reasoning', text: 'thinking', providerOptions: signature });
    expect(textOf(message)).toBe('Hello');
  });

  it('treats empty arguments as an empty object', () => {
    const message = contentToAssistantMessage([{ type: 'tool-call', toolCallId: 'c', toolName: 'now', input: '' }]);
    expect(toolCallsOf(message)[0]?.input).toEqual({});
  });

  it('round-trips content', () => {
    const message = contentToAssistantMessage(content);
    expect(assistantMessageToContent(JSON.parse(JSON.stringify(message)))).toEqual(content);
  });
});
