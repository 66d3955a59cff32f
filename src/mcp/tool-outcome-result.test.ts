import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../tools/define-tool.ts';
import type { ToolCallOutcome } from '../tools/run-tool-call.ts';
import { outcomeToCallToolResult, toolDescriptor } from './tool-outcome-result.ts';

const ok = (modelOutput: ToolCallOutcome['modelOutput']): ToolCallOutcome => ({
  toolCallId: 'c',
  toolName: 't',
  ok: true,
  modelOutput,
  durationMs: 1,
});

describe('toolDescriptor', () => {
  it('lists the JSON Schema the model would see, with effects as annotations', () => {
    const tool = defineTool({
      name: 'add',
      description: 'Adds',
      input: z.object({ a: z.number() }),
      effects: 'read',
      execute: ({ a }) => a,
    });
    expect(toolDescriptor(tool)).toEqual({
      name: 'add',
      description: 'Adds',
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
  });
});

describe('outcomeToCallToolResult', () => {
  it('sends failures as isError results with the agency code in _meta', () => {
    const failed: ToolCallOutcome = {
      ...ok({ type: 'error-text', value: 'bad' }),
      ok: false,
      error: { code: 'tool_invalid_input', message: 'Invalid arguments: a' },
    };
    expect(outcomeToCallToolResult(failed)).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments: a' }],
      isError: true,
      _meta: { 'agency/error-code': 'tool_invalid_input' },
    });
  });

  it('sends text as text, and JSON objects also as structured content', () => {
    expect(outcomeToCallToolResult(ok({ type: 'text', value: 'hi' }))).toEqual({
      content: [{ type: 'text', text: 'hi' }],
    });
    expect(outcomeToCallToolResult(ok({ type: 'json', value: { n: 5 } }))).toEqual({
      content: [{ type: 'text', text: '{"n":5}' }],
      structuredContent: { n: 5 },
    });
    expect(outcomeToCallToolResult(ok({ type: 'json', value: [1] }))).toEqual({
      content: [{ type: 'text', text: '[1]' }],
    });
  });

  it('maps file parts to images, audio, embedded resources and links', () => {
    const result = outcomeToCallToolResult(
      ok({
        type: 'content',
        value: [
          { type: 'file', data: { type: 'base64', base64: 'AA==' }, mediaType: 'image/png' },
          { type: 'file', data: { type: 'base64', base64: 'AQ==' }, mediaType: 'audio/wav' },
          { type: 'file', data: { type: 'base64', base64: 'Ag==' }, mediaType: 'application/pdf', filename: 'r.pdf' },
          { type: 'file', data: { type: 'url', url: 'https://example.com/a.csv' }, mediaType: 'text/csv' },
        ],
      }),
    );
    expect(result.content).toEqual([
      { type: 'image', data: 'AA==', mimeType: 'image/png' },
      { type: 'audio', data: 'AQ==', mimeType: 'audio/wav' },
      { type: 'resource', resource: { uri: 'agency:///tool-output/r.pdf', mimeType: 'application/pdf', blob: 'Ag==' } },
      { type: 'resource_link', uri: 'https://example.com/a.csv', name: 'output-4', mimeType: 'text/csv' },
    ]);
  });
});
