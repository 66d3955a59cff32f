import { describe, expect, it } from 'vitest';
import type { EventFrame } from '../api/types.ts';
import { type TimelineNode, timelineTree } from './timeline-tree.ts';

let seq = 0;
function frame(type: EventFrame['type'], fields: Partial<EventFrame> = {}): EventFrame {
  seq += 1;
  return {
    version: 'agent.events.v1',
    id: `evt_${String(seq).padStart(26, '0')}`,
    seq,
    ts: new Date(Date.UTC(2026, 10, 25, 0, 0, seq)).toISOString(),
    type,
    ...fields,
  };
}
const wf = (attempt = 1) => ({ phase: 'workflow', attempt });
const place = (agent: string, runId: string, parent: string) => ({
  agent,
  run_id: runId,
  parent_run_id: parent,
  path: ['team', agent],
  depth: 1,
});

// The tree as lines: a group's label and state, its frames' types, indented by depth.
function outline(nodes: TimelineNode[], depth = 0): string[] {
  return nodes.flatMap((node) =>
    'frame' in node
      ? [`${'  '.repeat(depth)}${node.frame.type}`]
      : [
          `${'  '.repeat(depth)}[${node.group.type} ${node.group.label} ${node.group.state}${node.group.parallel ? ' parallel' : ''}]`,
          ...outline(node.group.children, depth + 1),
        ],
  );
}

describe('timelineTree', () => {
  it('nests parallel steps, a delegation with its sub-agent events, and a suspended step', () => {
    const frames = [
      frame('run.started'),
      frame('phase.start', { step: 'a', step_kind: 'function', data: wf() }),
      frame('phase.finish', { step: 'a', data: { ...wf(), status: 'done', duration_ms: 3 } }),
      frame('phase.start', { step: 'b', step_kind: 'agent', data: wf() }),
      frame('phase.start', { step: 'team', step_kind: 'agent', data: wf() }),
      frame('agent.start', { step: 'team', data: place('researcher', 'run_r', 'run_team') }),
      frame('agent.event', { step: 'team', data: { ...place('researcher', 'run_r', 'run_team'), tool: 'lookup' } }),
      frame('phase.finish', { step: 'b', data: { ...wf(), status: 'done' } }),
      frame('agent.finish', {
        step: 'team',
        data: { ...place('researcher', 'run_r', 'run_team'), finish_reason: 'stop', duration_ms: 40 },
      }),
      frame('phase.finish', { step: 'team', data: { ...wf(), status: 'done' } }),
      frame('phase.start', { step: 'ask', step_kind: 'function', data: wf() }),
      frame('finish', { step: 'ask', data: { reason: 'stopped', suspended: { step: 'ask', payload: {} } } }),
      frame('run.resumed', { data: { step: 'ask', input: 'yes' } }),
      frame('phase.start', { step: 'ask', step_kind: 'function', data: wf() }),
      frame('phase.finish', { step: 'ask', data: { ...wf(), status: 'done' } }),
    ];
    expect(outline(timelineTree(frames))).toEqual([
      'run.started',
      '[step a done]',
      '  phase.start',
      '  phase.finish',
      '[step b done parallel]',
      '  phase.start',
      '  phase.finish',
      '[step team done parallel]',
      '  phase.start',
      '  [agent team › researcher done]',
      '    agent.start',
      '    agent.event',
      '    agent.finish',
      '  phase.finish',
      '[step ask suspended]',
      '  phase.start',
      'finish',
      'run.resumed',
      '[step ask done]',
      '  phase.start',
      '  phase.finish',
    ]);
  });

  it('ends a failed attempt at its warning, and nests a delegation of a delegation', () => {
    const frames = [
      frame('phase.start', { step: 's', step_kind: 'agent', data: wf(1) }),
      frame('agent.start', { step: 's', data: place('outer', 'run_o', 'run_s') }),
      frame('agent.start', { step: 's', data: { ...place('inner', 'run_i', 'run_o'), depth: 2 } }),
      frame('agent.finish', { step: 's', data: { ...place('inner', 'run_i', 'run_o'), finish_reason: 'error' } }),
      frame('agent.finish', { step: 's', data: place('outer', 'run_o', 'run_s') }),
      frame('warning', { step: 's', data: { ...wf(1), retry_in_ms: 500 } }),
      frame('phase.start', { step: 's', step_kind: 'agent', data: wf(2) }),
      frame('finish', { data: { reason: 'cancelled' } }),
    ];
    const tree = timelineTree(frames);
    expect(outline(tree)).toEqual([
      '[step s failed]',
      '  phase.start',
      '  [agent team › outer done]',
      '    agent.start',
      '    [agent team › inner failed]',
      '      agent.start',
      '      agent.finish',
      '    agent.finish',
      '  warning',
      '[step s stopped]',
      '  phase.start',
      'finish',
    ]);
    expect('group' in tree[1]! && tree[1].group.detail).toBe('agent · attempt 2');
  });

  it("leaves a governed run's frames flat", () => {
    const frames = [
      frame('run.started'),
      frame('phase.start', { step: '0001-plan', data: { phase: 'plan' } }),
      frame('warning', { step: '0001-plan' }),
      frame('phase.finish', { step: '0001-plan', data: { phase: 'plan' } }),
    ];
    expect(outline(timelineTree(frames))).toEqual(['run.started', 'phase.start', 'warning', 'phase.finish']);
  });
});
