import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolCall } from '../tools/run-tool-call.ts';
import type { McpProgressEvent } from './connect-options.ts';
import { connectMcp } from './connect-mcp.ts';
import type { McpConnection } from './mcp-connection.ts';

// The reference server from @modelcontextprotocol/server-everything, over stdio.
const EVERYTHING = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url),
);

let everything: McpConnection;
const progress: McpProgressEvent[] = [];

beforeAll(async () => {
  everything = await connectMcp({
    name: 'everything',
    transport: { type: 'stdio', command: process.execPath, args: [EVERYTHING, 'stdio'] },
    overrides: { 'get-sum': { effects: 'read' } },
    onProgress: (event) => progress.push(event),
  });
});

afterAll(async () => {
  await everything?.close();
});

const call = (tool: string, input: unknown, options: Parameters<typeof runToolCall>[2] = {}) =>
  runToolCall(
    everything.tools().find((candidate) => candidate.name === `everything__${tool}`),
    { toolCallId: `call_${tool}`, toolName: `everything__${tool}`, input },
    options,
  );

describe('connectMcp against server-everything (stdio)', () => {
  it('lists its tools under the server name, sorted, with their schemas unchanged', () => {
    expect(everything.tools().map((tool) => tool.name)).toEqual([
      'everything__echo',
      'everything__get-annotated-message',
      'everything__get-env',
      'everything__get-resource-links',
      'everything__get-resource-reference',
      'everything__get-structured-content',
      'everything__get-sum',
      'everything__get-tiny-image',
      'everything__gzip-file-as-resource',
      'everything__toggle-simulated-logging',
      'everything__toggle-subscriber-updates',
      'everything__trigger-long-running-operation',
    ]);
    const sum = everything.tools().find((tool) => tool.name === 'everything__get-sum');
    expect(sum?.inputSchema).toMatchObject({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { a: { type: 'number', description: 'First number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    });
    expect(sum?.description).toBe('Returns the sum of two numbers');
    expect(everything.status()).toMatchObject({ state: 'connected', server: { name: 'mcp-servers/everything' } });
  });

  it('skips the task-only tool, saying why', () => {
    expect(everything.skippedTools()).toEqual([
      { name: 'simulate-research-query', reason: 'it only runs as an MCP task, which this client does not support' },
    ]);
  });

  it('defaults effects to exec and applies per-tool overrides', () => {
    const effects = Object.fromEntries(everything.tools().map((tool) => [tool.name, tool.effects]));
    expect(effects['everything__echo']).toBe('exec');
    expect(effects['everything__get-sum']).toBe('read');
    expect(everything.tools().find((tool) => tool.name === 'everything__get-sum')?.idempotent).toBe(true);
  });

  it('calls tools and returns their text', async () => {
    expect(await call('echo', { message: 'hello' })).toMatchObject({
      ok: true,
      modelOutput: { type: 'text', value: 'Echo: hello' },
    });
    expect((await call('get-sum', { a: 2, b: 3 })).modelOutput).toEqual({
      type: 'text',
      value: 'The sum of 2 and 3 is 5.',
    });
  });

  it('refuses invalid arguments before calling, naming each field', async () => {
    const outcome = await call('get-sum', { a: 'two', c: 1 });
    expect(outcome.error?.code).toBe('tool_invalid_input');
    expect(outcome.error?.message).toContain('- a: must be number');
    expect(outcome.error?.message).toContain('- b: is required');
  });

  it('returns an image as a base64 file part', async () => {
    const outcome = await call('get-tiny-image', {});
    expect(outcome.modelOutput).toMatchObject({
      type: 'content',
      value: [
        { type: 'text', text: "Here's the image you requested:" },
        { type: 'file', mediaType: 'image/png', data: { type: 'base64' } },
        { type: 'text', text: 'The image above is the MCP logo.' },
      ],
    });
    const file = outcome.modelOutput.type === 'content' ? outcome.modelOutput.value[1] : undefined;
    const base64 = file?.type === 'file' && file.data.type === 'base64' ? file.data.base64 : '';
    expect(Buffer.from(base64, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('returns structured content as JSON and embedded binary resources as files', async () => {
    expect((await call('get-structured-content', { location: 'Chicago' })).modelOutput).toEqual({
      type: 'json',
      value: { temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 },
    });
    const gzip = await call('gzip-file-as-resource', {
      name: 'hello.txt.gz',
      data: `data:text/plain;base64,${Buffer.from('hello').toString('base64')}`,
      outputType: 'resource',
    });
    expect(gzip.modelOutput).toMatchObject({
      type: 'content',
      value: [{ type: 'file', mediaType: 'application/gzip', filename: 'hello.txt.gz', data: { type: 'base64' } }],
    });
  });

  it('carries a large output whole', async () => {
    const message = 'x'.repeat(300_000);
    const outcome = await call('echo', { message });
    expect(outcome.modelOutput).toEqual({ type: 'text', value: `Echo: ${message}` });
  });

  it('turns an isError result into an error result the model sees', async () => {
    const outcome = await call('gzip-file-as-resource', { data: 'ftp://example.com/file' });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'tool_failed' } });
    expect(outcome.modelOutput).toEqual({
      type: 'error-text',
      value: expect.stringContaining('Unsupported URL protocol for ftp://example.com/file'),
    });
  });

  it('reports progress notifications of a long-running operation', async () => {
    progress.length = 0;
    const outcome = await call('trigger-long-running-operation', { duration: 0.3, steps: 3 });
    expect(outcome.modelOutput).toEqual({
      type: 'text',
      value: 'Long running operation completed. Duration: 0.3 seconds, Steps: 3.',
    });
    // The SDK dispatches notifications a microtask late, so the last one is lost when it arrives with the result.
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.slice(0, 2)).toEqual(
      [1, 2].map((step) => ({
        server: 'everything',
        tool: 'everything__trigger-long-running-operation',
        toolCallId: 'call_trigger-long-running-operation',
        progress: step,
        total: 3,
      })),
    );
  });

  it('cancels a call at its timeout or on abort, and the connection keeps working', async () => {
    const started = performance.now();
    const timedOut = await call('trigger-long-running-operation', { duration: 5, steps: 5 }, { timeoutMs: 150 });
    expect(timedOut.error?.code).toBe('tool_timeout');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const aborted = await call(
      'trigger-long-running-operation',
      { duration: 5, steps: 5 },
      { signal: controller.signal },
    );
    expect(aborted.error?.code).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(2_000);
    expect((await call('echo', { message: 'still here' })).ok).toBe(true);
  });
});
