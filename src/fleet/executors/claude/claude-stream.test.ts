import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExecutorEvent } from '../executor.ts';
import { createClaudeStream } from './claude-stream.ts';

// Recorded from Claude Code 2.1.332 in agency's sandbox against test/support/scripted-messages-server.ts.
const fixture = (name: string) => readFileSync(join(import.meta.dirname, '__fixtures__', `${name}.ndjson`), 'utf8');

function parse(text: string) {
  const events: ExecutorEvent[] = [];
  const stream = createClaudeStream((event) => events.push(event));
  for (const line of text.split('\n')) stream.handle(line);
  return { events, run: stream.finish() };
}

describe('Claude Code stream-json', () => {
  it('maps text, tool uses, their results and the final usage onto events', () => {
    const { events, run } = parse(fixture('tool-use'));
    expect(events).toEqual([
      { type: 'text', text: 'I will write the file.' },
      {
        type: 'tool.call',
        tool: 'Write',
        input: { file_path: '/tmp/exp/capw/notes.txt', content: 'hello\n' },
        id: expect.stringMatching(/^toolu_/) as unknown,
      },
      { type: 'tool.result', tool: 'Write', ok: true, id: expect.stringMatching(/^toolu_/) as unknown },
      {
        type: 'tool.call',
        tool: 'Bash',
        input: expect.objectContaining({ command: 'cat /etc/shadow' }) as unknown,
        id: expect.any(String) as unknown,
      },
      { type: 'tool.result', tool: 'Bash', ok: false, id: expect.any(String) as unknown },
      { type: 'text', text: 'Wrote notes.txt.' },
      { type: 'usage', input: 8519, output: 98, costUsd: 0.027027000000000002 },
    ]);
    expect(run).toEqual({
      output: 'Wrote notes.txt.',
      sessionId: '5b0e8a4e-3f7c-4d2a-9a51-0c6f1f2d9e01',
      usage: { input: 8519, output: 98 },
      costUsd: 0.027027000000000002,
      numTurns: 3,
    });
  });

  it('reads the resumed session it was given', () => {
    expect(parse(fixture('resumed')).run).toMatchObject({
      sessionId: '5b0e8a4e-3f7c-4d2a-9a51-0c6f1f2d9e01',
      output: 'Wrote notes.txt.',
    });
  });

  it.each([
    ['rate-limit', 'rate_limit', /Request rejected \(429\).*\(HTTP 429\)$/],
    ['invalid-api-key', 'invalid_api_key', /^Invalid API key/],
    ['prompt-too-long', 'context_window', /^Prompt is too long/],
    ['connection-refused', 'network', /Connection refused/],
    ['max-turns', 'executor_error', /^Reached maximum number of turns \(1\)$/],
    ['resume-unknown', 'executor_error', /^No conversation found with session ID/],
  ])('classifies the failed result of %s as %s', (name, type, message) => {
    const { run, events } = parse(fixture(name));
    expect(run.error?.type).toBe(type);
    expect(run.error?.message).toMatch(message);
    // Claude Code's synthetic error message is the error, not the model's text.
    expect(events.filter((event) => event.type === 'text')).toEqual([]);
  });

  it('keeps what a cut-short stream said, and skips lines that are not JSON', () => {
    const lines = fixture('tool-use').split('\n');
    const { run } = parse(['not json', ...lines.slice(0, 3), '{"type":"assistant", "trunc'].join('\n'));
    expect(run).toEqual({ output: 'I will write the file.', sessionId: '5b0e8a4e-3f7c-4d2a-9a51-0c6f1f2d9e01' });
  });

  it('warns about API retries and the tools Claude Code denied itself', () => {
    const { events } = parse(
      [
        '{"type":"system","subtype":"api_retry","attempt":1,"max_retries":10,"retry_delay_ms":509,"error_status":429,"error":"rate_limit"}',
        '{"type":"result","subtype":"success","is_error":false,"result":"ok","permission_denials":[{"tool_name":"Bash","tool_use_id":"t1","tool_input":{}}]}',
      ].join('\n'),
    );
    expect(events).toEqual([
      { type: 'warning', message: 'Claude Code retries the API, attempt 1/10: rate_limit (HTTP 429)' },
      { type: 'warning', message: 'Claude Code denied itself Bash: permission denied' },
    ]);
  });
});
