import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { createRedactor } from '../core/redact.ts';
import { createLogger, redactingStream } from './logger.ts';

const KEY = 'sk-proj-LoggerCanary0123456789abcdef';
const CREDENTIAL = 'credential-value-for-logger';

function memory() {
  const lines: string[] = [];
  return { lines, write: (chunk: string) => lines.push(...chunk.split('\n').filter(Boolean)) };
}

describe('createLogger', () => {
  it('writes JSON lines with level, time and message', () => {
    const sink = memory();
    const logger = createLogger({ destination: sink, name: 'agency', now: () => 0, redactor: createRedactor() });
    logger.info({ task: 't1' }, 'started');
    logger.debug('not at info level');
    expect(sink.lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      expect.objectContaining({
        level: 30,
        time: '1970-01-01T00:00:00.000Z',
        name: 'agency',
        task: 't1',
        msg: 'started',
      }),
    ]);
  });

  it('redacts messages, fields, child bindings, serialized errors and their stacks', () => {
    const sink = memory();
    const redactor = createRedactor({ extraSecrets: [CREDENTIAL] });
    const logger = createLogger({ destination: sink, redactor, level: 'trace' });
    const child = logger.child({ token: CREDENTIAL, session: `uses ${KEY}` });
    child.info({ headers: { authorization: 'Bearer abc', cookie: 'sid=1' } }, `calling with ${KEY}`);
    child.error({ err: new AgencyError('tool_failed', `failed with ${CREDENTIAL}`) }, 'tool failed');
    child.warn(`fetch https://api.example.com/v1?api_key=${CREDENTIAL}`);
    const text = sink.lines.join('\n');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(CREDENTIAL);
    expect(text).not.toContain('sid=1');
    const [info, error] = sink.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(info).toMatchObject({ msg: 'calling with [REDACTED:openai]', headers: { authorization: '[REDACTED]' } });
    expect(error).toMatchObject({ err: { code: 'tool_failed', message: 'failed with [REDACTED]' } });
    expect(String((error?.err as { stack: string }).stack)).toContain('failed with [REDACTED]');
  });

  it('appends to a file destination, creating its directory', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'agency-log-')), 'logs', 'agency.jsonl');
    const logger = createLogger({ destination: path, redactor: createRedactor() });
    logger.info(`key ${KEY}`);
    logger.info('second');
    const lines = readFileSync(path, 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('[REDACTED:openai]');
  });
});

describe('redactingStream', () => {
  it('redacts lines that are not JSON as text', () => {
    const sink = memory();
    redactingStream(sink, createRedactor()).write(`plain ${KEY}\n`);
    expect(sink.lines).toEqual(['plain [REDACTED:openai]']);
  });
});
