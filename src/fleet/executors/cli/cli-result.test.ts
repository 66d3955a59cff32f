import { describe, expect, it } from 'vitest';
import { classifyErrorText, cliResult } from './cli-result.ts';
import { createLineSplitter } from './line-splitter.ts';
import type { CliRun } from './run-cli.ts';

describe('classifyErrorText (seed 004 appendix B)', () => {
  it.each([
    ['Error: rate limit exceeded, retry in 60 s', 'rate_limit'],
    ['exceeded retry limit, last status: 429 Too Many Requests', 'rate_limit'],
    ['Error: invalid api key', 'invalid_api_key'],
    ['unexpected status 401 Unauthorized: Incorrect API key provided', 'invalid_api_key'],
    ["Codex ran out of room in the model's context window.", 'context_window'],
    ['prompt is too long: 250000 tokens > 200000 maximum', 'context_window'],
    ['network error: ECONNREFUSED 127.0.0.1:443', 'network'],
    ['Reconnecting... waiting for network (Connection failed: error sending request)', 'network'],
    ['request timed out', 'timeout'],
    ['TypeError: undefined is not a function', undefined],
  ])('%s → %s', (text, type) => {
    expect(classifyErrorText(text)).toBe(type);
  });
});

describe('cliResult', () => {
  const run = (fields: Partial<CliRun>): CliRun => ({
    outcome: 'exited',
    exitCode: 0,
    stdout: '',
    stderr: '',
    ...fields,
  });
  const options = { name: 'Tool', timeoutMs: 30_000 };

  it('puts the sandbox, a cancel and a timeout before what the CLI said, and keeps the output', () => {
    const parsed = { output: 'half', error: { type: 'network' as const, message: 'waiting for network' } };
    expect(cliResult(run({ outcome: 'sandbox_error', problem: 'no bwrap' }), parsed, options).error).toEqual({
      type: 'sandbox_error',
      message: 'The sandbox could not run Tool: no bwrap',
    });
    expect(cliResult(run({ outcome: 'cancelled', exitCode: null }), parsed, options)).toMatchObject({
      output: 'half',
      error: { type: 'cancelled' },
    });
    expect(cliResult(run({ outcome: 'timeout', exitCode: null }), parsed, options).error).toEqual({
      type: 'timeout',
      message: 'Tool exceeded its timeout of 30 s. Its last error: waiting for network',
    });
  });

  it('classifies a bare non-zero exit from stderr, and reports no error for a clean one', () => {
    expect(cliResult(run({ exitCode: 3, stderr: 'boom\nrate limit hit\n' }), { output: '' }, options).error).toEqual({
      type: 'rate_limit',
      message: 'Tool exited with code 3: boom | rate limit hit',
    });
    expect(cliResult(run({}), { output: 'ok', usage: { input: 1, output: 2 } }, options)).toEqual({
      exitCode: 0,
      output: 'ok',
      stdout: '',
      stderr: '',
      usage: { input: 1, output: 2 },
    });
  });
});

describe('createLineSplitter', () => {
  it('yields whole lines across chunks and split characters, and the last line without a newline at the end', () => {
    const lines: string[] = [];
    const splitter = createLineSplitter((line) => lines.push(line));
    const bytes = Buffer.from('{"a":1}\n{"é":2}\npartial');
    splitter.push(bytes.subarray(0, 3));
    splitter.push(bytes.subarray(3, 11)); // cuts "é" in half
    expect(lines).toEqual(['{"a":1}']);
    splitter.push(bytes.subarray(11));
    expect(lines).toEqual(['{"a":1}', '{"é":2}']);
    splitter.end();
    expect(lines).toEqual(['{"a":1}', '{"é":2}', 'partial']);
  });
});
