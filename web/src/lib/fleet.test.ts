import { describe, expect, it } from 'vitest';
import type { ComponentView } from '../api/types.ts';
import { componentKey, isFinalTask, taskStateLabel, whyNoTask } from './fleet.ts';

const worker = (patch: Partial<ComponentView> = {}): ComponentView => ({
  name: 'w1',
  type: 'agent',
  interfaces: ['statusable', 'taskable'],
  url: 'http://127.0.0.1:9000',
  source: 'scan',
  state: 'idle',
  health: 'green',
  failures: 0,
  error: null,
  version: '0.1.0',
  uptime_seconds: 5,
  current_task: null,
  executor: 'claude',
  model: 'sonnet',
  taskable: true,
  seen_at: '2026-01-01T00:00:00.000Z',
  checked_at: '2026-01-01T00:00:00.000Z',
  ...patch,
});

describe('whyNoTask', () => {
  it('lets an idle, healthy worker take a task, and says why any other does not', () => {
    expect(whyNoTask(worker())).toBeUndefined();
    expect(whyNoTask(worker({ state: 'working' }))).toBe('The worker is working.');
    expect(whyNoTask(worker({ health: 'yellow' }))).toBe('The worker does not answer its polls.');
    expect(whyNoTask(worker({ taskable: false, type: 'director' }))).toBe('A director does not take tasks.');
    expect(whyNoTask(worker({ state: null }))).toBe('The worker is unknown.');
  });
});

describe('task states', () => {
  it('names an idle session, and knows the final states', () => {
    expect(taskStateLabel('idle')).toBe('idle (session open)');
    expect(taskStateLabel('working')).toBe('working');
    expect(['completed', 'failed', 'cancelled', 'idle', 'working'].map((s) => isFinalTask(s as never))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('keys a component by its name, or its URL before it answered', () => {
    expect(componentKey(worker())).toBe('w1');
    expect(componentKey(worker({ name: null }))).toBe('http://127.0.0.1:9000');
  });
});
