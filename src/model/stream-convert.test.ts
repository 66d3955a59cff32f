import type { LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { createContentCollector } from './stream-convert.ts';

describe('createContentCollector', () => {
  it("keeps a stream's content and drops its envelope (stream-start, response-metadata, tool input deltas)", () => {
    // The parts @ai-sdk/openai emits for a reply with text and a tool call, in its order.
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'response-metadata', id: 'chatcmpl-1', modelId: 'gpt-4o-2024-08-06', timestamp: new Date(0) },
      { type: 'text-start', id: '0' },
      { type: 'text-delta', id: '0', delta: "I'll check " },
      { type: 'text-delta', id: '0', delta: 'Paris.' },
      { type: 'text-end', id: '0' },
      { type: 'tool-input-start', id: 'call_1', toolName: 'get_weather' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{"city":"Paris"}' },
      { type: 'tool-input-end', id: 'call_1' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: '{"city":"Paris"}' },
      { type: 'raw', rawValue: {} },
    ];
    const collector = createContentCollector();
    for (const part of parts) collector.add(part);
    expect(collector.content()).toEqual([
      { type: 'text', text: "I'll check Paris." },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'get_weather', input: '{"city":"Paris"}' },
    ]);
  });
});
