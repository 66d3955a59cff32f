import { mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../api/worker-schemas.ts';
import { createHistoryStore } from './history-store.ts';

const T0 = Date.parse('2026-11-25T10:00:00.000Z');

function record(n: number, state: HistoryRecord['state'], overrides: Partial<HistoryRecord> = {}): HistoryRecord {
  return {
    task_id: `task-01m89n${String(n).padStart(20, '0')}`,
    state,
    executor: 'claude',
    exit_code: null,
    started_at: new Date(T0 + n * 1_000).toISOString(),
    completed_at: null,
    duration_seconds: null,
    output: null,
    error: null,
    session_id: '0b6f3a52-3c55-4b8e-9a8e-5c4f6c1d2e3f',
    token_usage: null,
    cost_usd: null,
    turns: 1,
    prompt: `prompt ${n}`,
    log: [],
    stdout: '',
    stderr: '',
    ...overrides,
  };
}

async function store(limit = 100, now = T0 + 60_000) {
  const dir = join(await mkdtemp(join(tmpdir(), 'agency-history-')), 'history');
  const warnings: string[] = [];
  return { dir, warnings, history: createHistoryStore({ dir, limit, now: () => now, warn: (m) => warnings.push(m) }) };
}

describe('the history store', () => {
  it('marks tasks a dead worker left running as failed with worker_lost, keeps idle sessions, and starts clean', async () => {
    const { dir, history, warnings } = await store();
    await history.recover();
    await history.save(record(1, 'working'));
    await history.save(record(2, 'cancelling'));
    await history.save(record(3, 'idle', { output: 'waiting' }));
    await history.save(record(4, 'completed'));
    await writeFile(join(dir, '.task-x.json.0123456789ab.agency-tmp'), '{"torn');
    await writeFile(join(dir, 'task-01m89n99999999999999999999.json'), 'not json');

    const restarted = createHistoryStore({ dir, limit: 100, now: () => T0 + 60_000, warn: (m) => warnings.push(m) });
    const { lost, idle } = await restarted.recover();
    expect(lost.map((task) => [task.task_id.slice(-1), task.state, task.error?.type])).toEqual([
      ['1', 'failed', 'worker_lost'],
      ['2', 'failed', 'worker_lost'],
    ]);
    expect(lost[0]).toMatchObject({
      completed_at: new Date(T0 + 60_000).toISOString(),
      duration_seconds: 59,
      error: {
        message:
          'The worker stopped (killed or crashed) while the task was working; found at its restart at 2026-11-25T10:01:00.000Z',
      },
    });
    expect(idle.map((task) => task.task_id.slice(-1))).toEqual(['3']);
    expect((await restarted.read(record(1, 'working').task_id))?.state).toBe('failed');
    expect((await readdir(dir)).sort()).toEqual([
      `${record(1, 'working').task_id}.json`,
      `${record(2, 'working').task_id}.json`,
      `${record(3, 'working').task_id}.json`,
      `${record(4, 'working').task_id}.json`,
      'task-01m89n99999999999999999999.json.corrupt',
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(/task-01m89n99999999999999999999\.json cannot be read .*; moved aside$/),
    ]);

    // A third start finds nothing left to rewrite.
    const third = createHistoryStore({ dir, limit: 100, now: () => T0, warn: () => {} });
    expect((await third.recover()).lost).toEqual([]);
  });

  it('keeps the last `limit` finished records, never dropping open ones', async () => {
    const { dir, history } = await store(2);
    await history.recover();
    await history.save(record(1, 'idle'));
    for (let n = 2; n <= 5; n++) await history.save(record(n, 'completed'));
    expect(history.page(1, 10).items.map((item) => item.task_id.slice(-1))).toEqual(['5', '4', '1']);
    expect((await readdir(dir)).length).toBe(3);
    expect(await history.read(record(2, 'completed').task_id)).toBeUndefined();
  });

  it('pages newest first, with summaries: no output, a prompt preview, live durations', async () => {
    const { history } = await store(100, T0 + 100_000);
    await history.recover();
    for (let n = 1; n <= 5; n++) await history.save(record(n, 'completed', { output: 'secret output' }));
    await history.save(record(6, 'working', { prompt: 'a very long prompt '.repeat(20) }));
    const first = history.page(1, 2);
    expect(first.total).toBe(6);
    expect(first.items[0]).toMatchObject({ state: 'working', duration_seconds: 94 });
    expect(first.items[0]!.prompt_preview).toHaveLength(80);
    expect(first.items[0]).not.toHaveProperty('output');
    expect(history.page(3, 2).items.map((item) => item.task_id.slice(-1))).toEqual(['2', '1']);
    expect(history.page(4, 2).items).toEqual([]);
  });

  it('writes each record whole (0600), and a read sees a save at once', async () => {
    const { dir, history } = await store();
    await history.recover();
    const saving = history.save(record(1, 'working'));
    expect((await history.read(record(1, 'working').task_id))?.state).toBe('working');
    await saving;
    const file = join(dir, `${record(1, 'working').task_id}.json`);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(record(1, 'working'));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });
});
