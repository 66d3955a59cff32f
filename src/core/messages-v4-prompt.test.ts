import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { imagePart } from './messages.ts';
import { contentToAssistantMessage } from './messages-v4-content.ts';
import { fromV4Prompt, toV4Prompt } from './messages-v4-prompt.ts';

const png = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]);
const signature = { anthropic: { signature: 'EqQBCkYIBxgCKkD' } };

// A prompt with every part kind the AI SDK defines, including ones agency carries through untouched.
const prompt: LanguageModelV4Prompt = [
  {
    role: 'system',
    content: 'You are terse.',
    providerOptions: { anthropic: { cacheControl: { type: 'ephemeral' } } },
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in these?' },
      { type: 'file', mediaType: 'image/png', data: { type: 'data', data: Buffer.from(png).toString('base64') } },
      { type: 'file', mediaType: 'image', data: { type: 'url', url: new URL('https://example.com/cat.jpg') } },
      {
        type: 'file',
        mediaType: 'application/pdf',
        filename: 'a.pdf',
        data: { type: 'reference', reference: { openai: 'file-1' } },
      },
      { type: 'file', mediaType: 'text/plain', data: { type: 'text', text: 'inline doc' } },
      {
        type: 'file',
        mediaType: 'image/png',
        data: { type: 'url', url: new URL('s3://bucket/key%20x'), originalUrl: 's3://bucket/key x' },
      },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'Look closely.', providerOptions: signature },
      { type: 'text', text: 'Checking.' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: { q: 'cat', n: [1, 2] } },
      { type: 'tool-call', toolCallId: 'srv_1', toolName: 'web_search', input: {}, providerExecuted: true },
      {
        type: 'tool-result',
        toolCallId: 'srv_1',
        toolName: 'web_search',
        output: { type: 'json', value: { hits: 3 } },
      },
      { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { id: 'c1' } } },
      { type: 'reasoning-file', mediaType: 'image/png', data: { type: 'data', data: png } },
    ],
  },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'call_1', toolName: 'lookup', output: { type: 'text', value: 'a cat' } },
      { type: 'tool-result', toolCallId: 'c2', toolName: 'x', output: { type: 'error-text', value: 'boom' } },
      { type: 'tool-result', toolCallId: 'c3', toolName: 'x', output: { type: 'error-json', value: { code: 1 } } },
      { type: 'tool-result', toolCallId: 'c4', toolName: 'x', output: { type: 'execution-denied', reason: 'no' } },
      {
        type: 'tool-result',
        toolCallId: 'c5',
        toolName: 'shot',
        output: {
          type: 'content',
          value: [
            { type: 'text', text: 'screenshot' },
            { type: 'file', mediaType: 'image/png', data: { type: 'data', data: 'iVBORw0KGgo=' } },
          ],
        },
      },
      { type: 'tool-approval-response', approvalId: 'ap_1', approved: false, reason: 'not now' },
    ],
  },
];

describe('V4 prompt conversion', () => {
  it('round-trips every part kind without loss', () => {
    const messages = fromV4Prompt(prompt);
    expect(toV4Prompt(messages)).toEqual(prompt);
  });

  it('produces plain JSON messages that survive serialization', () => {
    const messages = fromV4Prompt(prompt);
    const revived = JSON.parse(JSON.stringify(messages));
    expect(revived).toEqual(messages);
    expect(toV4Prompt(revived)).toEqual(prompt);
  });

  it('stores bytes as base64 and tells images from files', () => {
    const bytes = fromV4Prompt([
      { role: 'user', content: [{ type: 'file', mediaType: 'image/png', data: { type: 'data', data: png } }] },
    ]);
    expect(bytes[0]).toEqual({ role: 'user', content: [imagePart(png, 'image/png')] });
    const [, user] = fromV4Prompt(prompt);
    expect(user?.role === 'user' && user.content.map((part) => part.type)).toEqual([
      'text',
      'image',
      'image',
      'file',
      'file',
      'image',
    ]);
  });
});

describe('model output sent back in a prompt', () => {
  it('turns provider metadata into provider options and leaves out output-only parts', () => {
    const message = contentToAssistantMessage([
      { type: 'custom', kind: 'openai.compaction', providerMetadata: { openai: { itemId: 'cmp_1' } } },
      { type: 'source', sourceType: 'url', id: 's', url: 'https://a.example' },
      { type: 'text', text: 'answer' },
    ]);
    expect(toV4Prompt([message])).toEqual([
      {
        role: 'assistant',
        content: [
          { type: 'custom', kind: 'openai.compaction', providerOptions: { openai: { itemId: 'cmp_1' } } },
          { type: 'text', text: 'answer' },
        ],
      },
    ]);
  });
});
