import { describe, expect, it } from 'vitest';
import { controlPathOf, pathArguments } from './control-paths.ts';

describe('control paths', () => {
  it.each([
    ['progress/approvals/decisions/req_1.json', 'progress/approvals'],
    ['approvals/decisions/req_1.json', 'progress/approvals'],
    ['./progress/plan/current.json', 'progress/plan'],
    ['progress/artifacts/../plan/current.json', 'progress/plan'],
    ['progress/state.json', 'progress/state.json'],
    ['events.ndjson', 'progress/events.ndjson'],
    ['progress\\approvals\\x.json', 'progress/approvals'],
    ['progress/STOP', 'progress/STOP'],
  ])('%s is the control path %s', (path, control) => {
    expect(controlPathOf(path)).toBe(control);
  });

  it.each([
    'progress/artifacts/brief.md',
    'artifacts/plan.md',
    'progress/notes.md',
    'task/approvals/x',
    'progress/findings.md',
  ])('%s is a working file', (path) => {
    expect(controlPathOf(path)).toBeUndefined();
  });

  it('finds path-like arguments', () => {
    expect(pathArguments({ path: 'a', content: 'b', files: ['c', 1], destination: 'd', text: 'e' })).toEqual([
      'a',
      'c',
      'd',
    ]);
  });
});
