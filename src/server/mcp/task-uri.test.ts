import { describe, expect, it } from 'vitest';
import { deliverableUri, parseTaskUri } from './task-uri.ts';

const ID = 'task_01M89MZNAP828YS61ZDP6W894Q';

describe('parseTaskUri', () => {
  it.each([
    ['agency://approvals', { kind: 'approvals' }],
    [`agency://tasks/${ID}`, { kind: 'task', taskId: ID }],
    [`agency://tasks/${ID}/events`, { kind: 'events', taskId: ID, after: 0 }],
    [`agency://tasks/${ID}/events?after=42`, { kind: 'events', taskId: ID, after: 42 }],
    [`agency://tasks/${ID}/result?view=full`, { kind: 'result', taskId: ID, view: 'full' }],
    [`agency://tasks/${ID}/deliverables/report%20one.md`, { kind: 'deliverable', taskId: ID, path: 'report one.md' }],
    [`agency://tasks/${ID}/deliverables/data/q3.csv`, { kind: 'deliverable', taskId: ID, path: 'data/q3.csv' }],
  ])('reads %s', (uri, expected) => {
    expect(parseTaskUri(uri)).toEqual(expected);
  });

  it.each([
    'agency://tasks',
    'agency://tasks/',
    'agency://TASKS/' + ID,
    'agency:/tasks/' + ID,
    `agency://tasks/${ID.toLowerCase()}`,
    `agency://tasks/${ID}/`,
    `agency://tasks/${ID}/deliverables/`,
    `agency://tasks/${ID}/deliverables/a//b`,
    `agency://tasks/${ID}/deliverables/./a`,
    `agency://tasks/${ID}/deliverables/a/..`,
    `agency://tasks/${ID}/deliverables/%2E%2E/state.json`,
    `agency://tasks/${ID}/deliverables/a%2Fb`,
    `agency://tasks/${ID}/deliverables/a%5Cb`,
    `agency://tasks/${ID}/deliverables/a%00`,
    `agency://tasks/${ID}/deliverables/%ZZ`,
    `agency://tasks/${ID}/events?after=1e3`,
    `agency://tasks/${ID}/events?from=1`,
    `agency://tasks/${ID}/result?view=raw`,
    `agency://tasks/${ID}?x=1`,
    `agency://tasks/${ID}#frag`,
    `agency://tasks/${ID}/deliverables/${'a'.repeat(2100)}`,
  ])('refuses %s, naming the uri', (uri) => {
    expect(() => parseTaskUri(uri)).toThrow(
      expect.objectContaining({ code: 'invalid_argument', details: { field: 'uri' } }),
    );
  });

  it('round-trips deliverable URIs, with or without the progress/artifacts/ prefix', () => {
    for (const path of ['progress/artifacts/report one.md', 'report one.md', 'data/100%.csv']) {
      const uri = deliverableUri(ID, path);
      expect(parseTaskUri(uri)).toEqual({
        kind: 'deliverable',
        taskId: ID,
        path: path.replace('progress/artifacts/', ''),
      });
    }
  });
});
