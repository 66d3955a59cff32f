import { describe, expect, it } from 'vitest';
import { type LiveView, statusOf, type TaskRecord } from './task-records.ts';

const record = (parts: Partial<TaskRecord>): TaskRecord =>
  ({
    id: 'task_01M89MZNAP828YS61ZDP6W894Q',
    request: undefined,
    spec: undefined,
    state: undefined,
    ...parts,
  }) as TaskRecord;
const idle: LiveView = { queued: false, live: false, retrying: false };
const live: LiveView = { ...idle, live: true };
const spec = {} as TaskRecord['spec'];

describe('statusOf, before a run has a state', () => {
  it('is running for a run that wrote its spec, live here or elsewhere; interrupted when no process runs it', () => {
    expect(statusOf(record({ spec }), live)).toBe('running');
    expect(statusOf(record({ spec, owner: { pid: 1, alive: true } }), idle)).toBe('running');
    expect(statusOf(record({ spec }), idle)).toBe('interrupted');
    expect(statusOf(record({ spec, owner: { pid: 1, alive: false } }), idle)).toBe('interrupted');
  });

  it('is queued while queued or not yet started, created while held', () => {
    expect(statusOf(record({ spec }), { ...idle, queued: true })).toBe('queued');
    expect(statusOf(record({}), live)).toBe('queued');
    expect(statusOf(record({ request: { hold: true } as TaskRecord['request'] }), idle)).toBe('created');
  });
});

describe('statusOf, once a run has a state', () => {
  const state = (status: string) => ({ status }) as TaskRecord['state'];

  it("is the run's own once the run is released, and running while it is still closing here", () => {
    for (const final of ['stopped', 'completed', 'failed']) {
      expect(statusOf(record({ spec, state: state(final) }), idle)).toBe(final);
      expect(statusOf(record({ spec, state: state(final) }), live)).toBe('running');
    }
  });

  it('is interrupted for an open state no process runs', () => {
    expect(statusOf(record({ spec, state: state('waiting_approval') }), live)).toBe('waiting_approval');
    expect(statusOf(record({ spec, state: state('running') }), idle)).toBe('interrupted');
  });
});
