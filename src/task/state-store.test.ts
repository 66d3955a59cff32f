import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { sampleState } from '../../test/support/sample-state.ts';
import type { StateFile } from './contracts/state.ts';
import { createFsSpy, osError } from '../../test/support/fs-spy.ts';
import { createFileStateStore, createMemoryStateStore } from './state-store.ts';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agency-state-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const state = sampleState;

async function readError(content: string): Promise<AgencyError> {
  await writeFile(path.join(dir, 'state.json'), content);
  const error = await createFileStateStore(dir)
    .read()
    .catch((e: unknown) => e);
  expect(AgencyError.hasCode(error, 'state_corrupt')).toBe(true);
  return error as AgencyError;
}

describe('createFileStateStore', () => {
  it('reads undefined before the first write, then what was written', async () => {
    const store = createFileStateStore(dir);
    expect(await store.read()).toBeUndefined();
    await store.write(state());
    await store.write(state({ steps_done: 4, last_seq: 50 }));
    expect(await store.read()).toEqual(state({ steps_done: 4, last_seq: 50 }));
    expect(await readdir(dir)).toEqual(['state.json']);
    expect(await readFile(path.join(dir, 'state.json'), 'utf8')).toMatch(/^\{\n {2}"version": "agent\.state\.v1",/);
  });

  it('writes atomically, a temp file renamed over the state, and fsyncs nothing: the journal is the record', async () => {
    const spy = createFsSpy();
    const store = createFileStateStore(dir, { fs: spy.fs });
    await store.write(state());
    expect([spy.count('fsync'), spy.count('rename')]).toEqual([0, 1]);
    await store.write(state({ steps_done: 4 }));
    const temps = spy.calls.filter((c) => c.op === 'open').map((c) => String(c.target));
    expect(temps).toHaveLength(2);
    expect(temps[1]).not.toBe(temps[0]);
    expect(await readdir(dir)).toEqual(['state.json']);
  });

  it('keeps the previous state when a write fails (EIO at write, injected through the fs port)', async () => {
    await createFileStateStore(dir).write(state());
    const spy = createFsSpy(undefined, { fault: (c) => (c.op === 'write' ? osError('EIO', 'write') : undefined) });
    await expect(createFileStateStore(dir, { fs: spy.fs }).write(state({ steps_done: 9 }))).rejects.toMatchObject({
      code: 'file_write_failed',
      details: { os_code: 'EIO', path: path.join(dir, 'state.json') },
    });
    expect((await createFileStateStore(dir).read())?.steps_done).toBe(3);
  });

  it('reports a file that is not JSON as state_corrupt, naming the file and how to recover', async () => {
    const error = await readError('{"version": "agent.state.v1",');
    expect(error.message).toContain(`${path.join(dir, 'state.json')}: not valid JSON`);
    expect(error.message).toContain('agency resume');
  });

  it('reports a field that fails the schema as state_corrupt, naming the field', async () => {
    const bad = {
      ...state(),
      budgets: { ...state().budgets, limits: { ...state().budgets.limits, max_iterations: 'x' } },
    };
    const error = await readError(JSON.stringify(bad));
    expect(error.message).toContain('"budgets.limits.max_iterations" is invalid');
    expect(error.details).toMatchObject({ field: '"budgets.limits.max_iterations"' });
    expect(error.message).toContain('`agency resume` rebuilds it from there');
  });

  it('refuses to write a state it could not read back', async () => {
    const store = createFileStateStore(dir);
    await expect(store.write(state({ last_seq: -1 }))).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('createMemoryStateStore', () => {
  it('stores copies and validates like the file store', async () => {
    const store = createMemoryStateStore();
    expect(await store.read()).toBeUndefined();
    const written = state();
    await store.write(written);
    written.steps_done = 99;
    const read = await store.read();
    expect(read?.steps_done).toBe(3);
    if (read) read.phase = 'changed';
    expect((await store.read())?.phase).toBe('act');
    await expect(store.write(state({ status: 'bogus' as StateFile['status'] }))).rejects.toMatchObject({
      code: 'invalid_argument',
    });
  });
});
