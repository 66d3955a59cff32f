import { describe, expect, it } from 'vitest';
import { sampleState } from '../../test/support/sample-state.ts';
import type { StateFile } from './contracts/state.ts';
import type { StateStore } from './state-store.ts';
import { createStateWriter } from './state-writer.ts';

function slowStore(fail?: (state: StateFile) => Error | undefined) {
  const written: number[] = [];
  let release: (() => void) | undefined;
  const store: StateStore = {
    read: async () => undefined,
    write: async (state) => {
      await new Promise<void>((resolve) => (release = resolve));
      const error = fail?.(state);
      if (error) throw error;
      written.push(state.last_seq);
    },
  };
  const step = async () => {
    while (!release) await new Promise((resolve) => setImmediate(resolve));
    const go = release;
    release = undefined;
    go();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { store, written, step };
}

describe('createStateWriter', () => {
  it('writes behind the caller, one write at a time, folding states submitted meanwhile into the latest', async () => {
    const { store, written, step } = slowStore();
    const writer = createStateWriter(store);
    const state = sampleState({ last_seq: 1 });
    writer.submit(state);
    state.last_seq = 99; // the copy was taken at submit
    await step();
    writer.submit(sampleState({ last_seq: 2 }));
    writer.submit(sampleState({ last_seq: 3 }));
    writer.submit(sampleState({ last_seq: 4 }));
    const settled = writer.settle();
    await step();
    await settled;
    expect(written).toEqual([1, 4]);
  });

  it('writes at most once per interval, but a change of status at once', async () => {
    const written: string[] = [];
    const store: StateStore = {
      read: async () => undefined,
      write: async (state) => void written.push(`${state.last_seq}`),
    };
    const writer = createStateWriter(store, { minIntervalMs: 200 });
    writer.submit(sampleState({ last_seq: 1 }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    writer.submit(sampleState({ last_seq: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toEqual(['1']);
    writer.submit(sampleState({ last_seq: 3, status: 'waiting_approval' }));
    await expect.poll(() => written, { timeout: 100 }).toEqual(['1', '3']);
    writer.submit(sampleState({ last_seq: 4, status: 'waiting_approval' }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(written).toEqual(['1', '3']);
    await writer.settle();
    expect(written).toEqual(['1', '3', '4']);
  });

  it('reports a failed write at the next submit and at settle, and writes nothing after it', async () => {
    const { store, written, step } = slowStore((state) => (state.last_seq === 1 ? new Error('EIO') : undefined));
    const writer = createStateWriter(store);
    writer.submit(sampleState({ last_seq: 1 }));
    await step();
    expect(() => writer.submit(sampleState({ last_seq: 2 }))).toThrow('EIO');
    await expect(writer.settle()).rejects.toThrow('EIO');
    expect(written).toEqual([]);
  });
});
