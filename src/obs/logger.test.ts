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

  it('gives every line its component; a child logger names its own, once per line', () => {
    const sink = memory();
    const logger = createLogger({ destination: sink, component: 'server', redactor: createRedactor() });
    logger.info('listening');
    logger.child({ component: 'runner' }).info({ task_id: 't1' }, 'phase.start');
    createLogger({ destination: sink, redactor: createRedactor() }).info('no component');
    expect(sink.lines.map((line) => (JSON.parse(line) as { component?: string }).component)).toEqual([
      'server',
      'runner',
      undefined,
    ]);
    expect(sink.lines[1]?.match(/"component"/g)).toHaveLength(1);
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

function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [key, ...stringsIn(item)]);
}

describe('createLogger: a registered secret in every position and spelling', () => {
  // `/+=&"<'>` and the accented letters make each spelling below differ from the secret as registered.
  const SECRET = `Lögger-Sëcret/+=&"<'>0123456789`;
  const hex4 = (unit: number) => unit.toString(16).padStart(4, '0');
  const lowerHex = (text: string) => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  const spellings: Array<[string, string]> = [
    ['as registered', SECRET],
    ['in upper case', SECRET.toUpperCase()],
    ['in NFD', SECRET.normalize('NFD')],
    ['URL-encoded, lower-case hex', lowerHex(encodeURIComponent(SECRET))],
    ['encodeURI', encodeURI(SECRET)],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(SECRET))],
    ['\\uXXXX-escaped', Array.from(SECRET, (char) => `\\u${hex4(char.charCodeAt(0))}`).join('')],
    ['JSON-escaped twice', JSON.stringify(JSON.stringify(SECRET).slice(1, -1)).slice(1, -1)],
    ['as HTML references', Array.from(SECRET, (char) => `&#x${char.charCodeAt(0).toString(16)};`).join('')],
    ['in base64', Buffer.from(SECRET).toString('base64')],
  ];

  it.each(spellings)('leaves no 10 characters of it %s in any line', (_name, spelled) => {
    const sink = memory();
    const logger = createLogger({ destination: sink, redactor: createRedactor({ extraSecrets: [SECRET] }) });
    const child = logger.child({ session: `s ${spelled}`, [spelled]: 'a key' });
    child.info(`message ${spelled}`);
    child.info('interpolated %s and %j', spelled, { spelled });
    child.info({ nested: { deeper: { list: [`item ${spelled}`] } }, [`key ${spelled}`]: 1 }, 'fields');
    const cause = new Error(`cause ${spelled}`);
    const error = Object.assign(new AgencyError('tool_failed', `failed ${spelled}`, { cause }), { extra: spelled });
    child.error({ err: error }, 'error object');
    child.error(new Error(`bare ${spelled}`));
    expect(sink.lines).toHaveLength(5);
    // The lines as written, and every key and string in them as a reader gets them back.
    const texts = [sink.lines.join('\n'), ...sink.lines.flatMap((line) => stringsIn(JSON.parse(line)))];
    for (const form of [SECRET, spelled])
      for (let start = 0; start + 10 <= form.length; start++)
        for (const text of texts) expect(text).not.toContain(form.slice(start, start + 10));
  });
});
