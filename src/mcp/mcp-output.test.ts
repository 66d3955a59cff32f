import { describe, expect, it } from 'vitest';
import { mcpErrorText, mcpResultToModelOutput } from './mcp-output.ts';

const PNG = 'iVBORw0KGgo=';

describe('mcpResultToModelOutput', () => {
  it('joins text blocks into one text value', () => {
    expect(
      mcpResultToModelOutput({
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      }),
    ).toEqual({
      type: 'text',
      value: 'a\n\nb',
    });
    expect(mcpResultToModelOutput({ content: [] })).toEqual({ type: 'text', value: '' });
  });

  it('sends structured content as JSON when the text is only its serialized copy', () => {
    const structuredContent = { temperature: 36, conditions: 'rain' };
    const result = { content: [{ type: 'text' as const, text: JSON.stringify(structuredContent) }], structuredContent };
    expect(mcpResultToModelOutput(result)).toEqual({ type: 'json', value: structuredContent });
  });

  it('turns images, audio and binary resources into base64 file parts after the text', () => {
    const output = mcpResultToModelOutput({
      content: [
        { type: 'text', text: 'Here it is:' },
        { type: 'image', data: PNG, mimeType: 'image/png' },
        { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'demo://x/h.gz', mimeType: 'application/gzip', blob: 'H4sI' } },
      ],
    });
    expect(output).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'Here it is:' },
        { type: 'file', data: { type: 'base64', base64: PNG }, mediaType: 'image/png' },
        { type: 'file', data: { type: 'base64', base64: 'UklGRg==' }, mediaType: 'audio/wav' },
        { type: 'file', data: { type: 'base64', base64: 'H4sI' }, mediaType: 'application/gzip', filename: 'h.gz' },
      ],
    });
  });

  it('keeps structured content next to files', () => {
    const output = mcpResultToModelOutput({
      content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
      structuredContent: { width: 1 },
    });
    expect(output).toMatchObject({ type: 'content', value: [{ type: 'text', text: '{"width":1}' }, { type: 'file' }] });
  });

  it('shows text resources under their URI and resource links as a line', () => {
    const output = mcpResultToModelOutput({
      content: [
        { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' } },
        { type: 'resource_link', uri: 'demo://r/1', name: 'Resource 1', mimeType: 'text/plain' },
      ],
    });
    expect(output).toEqual({
      type: 'text',
      value: 'Resource file:///a.txt (text/plain):\nhello\n\nResource link "Resource 1": demo://r/1 (text/plain)',
    });
  });
});

describe('mcpErrorText', () => {
  it('is the text of the result, or says what it held', () => {
    expect(mcpErrorText({ content: [{ type: 'text', text: 'No such file' }], isError: true })).toBe('No such file');
    expect(mcpErrorText({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }], isError: true })).toBe(
      '[image/png content]',
    );
    expect(mcpErrorText({ content: [], isError: true })).toBe('the server reported an error without a message');
  });
});
