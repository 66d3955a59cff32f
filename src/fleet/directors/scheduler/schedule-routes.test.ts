// GET/PUT /schedule and POST /schedule/task on a real director (in this process, over HTTP): changes written to
// config.yaml with its comments, applied without a restart; malformed, unknown and duplicate input refused by name.
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agencyRootAt } from '../../../config/agency-root.ts';
import { startDirector, type RunningDirector } from '../host/start-director.ts';

const running: RunningDirector[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((director) => director.stop(0)));
});

const CONFIG = [
  '# Jobs of the app team.',
  'type: scheduler',
  'name: sched',
  'port: 9150',
  'timezone: Europe/Berlin  # local time',
  'discovery:',
  '  method: static',
  'schedule:',
  '  - name: nightly',
  '    cron: "0 2 * * *"',
  '    prompt: Clean up',
  '    workdir: /srv/app',
  '    timeout: 30m',
  '',
].join('\n');

async function start(config = CONFIG) {
  const root = await mkdtemp(join(tmpdir(), 'agency-schedule-'));
  const file = join(root, 'directors/sched/config.yaml');
  await mkdir(join(root, 'directors/sched'), { recursive: true });
  await writeFile(file, config);
  const director = await startDirector({
    file,
    root: agencyRootAt(root),
    version: '0.0.0-test',
    port: 0,
    validateResponses: true,
  });
  running.push(director);
  const call = async (method: string, path: string, body?: unknown, raw?: string) => {
    const response = await fetch(`${director.url}${path}`, {
      method,
      headers: body === undefined && raw === undefined ? {} : { 'content-type': 'application/json' },
      ...(raw !== undefined ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  return { file, director, call };
}

const weekly = { name: 'weekly', cron: '0 9 * * 1', prompt: 'Check deps', workdir: '/srv/app', model: 'opus' };

describe('the schedule API', () => {
  it('shows the schedule with each entry’s next run', async () => {
    const { call } = await start();
    const { status, body } = await call('GET', '/schedule');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      timezone: 'Europe/Berlin',
      overlap: 'skip',
      catch_up: 'latest',
      schedule: [{ name: 'nightly', cron: '0 2 * * *', timeout: '1800s' }],
      next_runs: { nightly: expect.stringMatching(/T0[01]:00:00\.000Z$/) as unknown },
    });
  });

  it('adds an entry and replaces the schedule, keeping the file’s comments, applied at once', async () => {
    const { call, file } = await start();
    const added = await call('POST', '/schedule/task', weekly);
    expect(added.status).toBe(201);
    expect((added.body.schedule as unknown[]).length).toBe(2);
    expect(((await call('GET', '/schedule')).body.next_runs as Record<string, string>).weekly).toBeDefined();
    const text = await readFile(file, 'utf8');
    expect(text).toContain('# Jobs of the app team.');
    expect(text).toContain('# local time');
    expect(text).toContain('name: weekly');

    const replaced = await call('PUT', '/schedule', { schedule: [weekly] });
    expect(replaced.status).toBe(200);
    expect((replaced.body.schedule as Array<{ name: string }>).map((entry) => entry.name)).toEqual(['weekly']);
    expect(await readFile(file, 'utf8')).not.toContain('nightly');
    expect((await call('GET', '/status')).body).toMatchObject({ config: { schedule_entries: 1 } });
  });

  it('refuses a duplicate name with 409, and bad input with 400 naming the field', async () => {
    const { call, file } = await start();
    const before = await readFile(file, 'utf8');
    const duplicate = await call('POST', '/schedule/task', { ...weekly, name: 'nightly' });
    expect(duplicate).toMatchObject({ status: 409, body: { error: 'conflict' } });
    const cases: Array<[string, string, unknown, string]> = [
      ['PUT', '/schedule', { schedule: [], timezone: 'UTC' }, 'timezone'],
      ['PUT', '/schedule', { schedule: [{ ...weekly, colour: 'red' }] }, 'colour'],
      ['PUT', '/schedule', { schedule: [{ ...weekly, cron: '0 9 * *' }] }, 'must have 5 fields'],
      ['PUT', '/schedule', { schedule: [{ ...weekly, cron: '0 25 * * 1' }] }, 'not a valid cron'],
      ['PUT', '/schedule', { schedule: [weekly, weekly] }, 'used twice'],
      ['PUT', '/schedule', { schedule: [{ ...weekly, timezone: 'Atlantis/Capital' }] }, 'IANA'],
      ['PUT', '/schedule', [weekly], 'expected object'],
      ['POST', '/schedule/task', { ...weekly, workdir: 'srv/app' }, 'absolute'],
      ['POST', '/schedule/task', { ...weekly, timeout: 'forever' }, 'duration'],
      ['POST', '/schedule/task', { name: '../x', cron: '* * * * *', prompt: 'p', workdir: '/x' }, 'name'],
    ];
    for (const [method, path, body, says] of cases) {
      const answer = await call(method, path, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(answer.body), JSON.stringify(body)).toContain(says);
    }
    expect((await call('PUT', '/schedule', undefined, '{"schedule": [')).status).toBe(400);
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('refuses a change when the file was broken by hand since, naming it, and keeps running', async () => {
    const { call, file } = await start();
    await writeFile(file, `${CONFIG}colour: red\n`);
    const answer = await call('POST', '/schedule/task', weekly);
    expect(answer).toMatchObject({ status: 400, body: { details: { agency_code: 'invalid_config' } } });
    expect(String(answer.body.message)).toContain(file);
    expect(String(answer.body.message)).toContain('colour');
    expect((await call('GET', '/status')).status).toBe(200);
  });
});
