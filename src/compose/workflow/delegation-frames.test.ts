import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../agent/types.ts';
import { emptyUsage } from '../../core/usage.ts';
import { delegationFrame } from './delegation-frames.ts';

const place = { agent: 'researcher', runId: 'run_r', parentRunId: 'run_team', path: ['team', 'researcher'], depth: 1 };

describe('delegationFrame', () => {
  it('journals a delegation, its tool calls and its end, with where it sits', () => {
    const start: AgentEvent = { type: 'agent-start', ...place, toolCallId: 'c1', input: 'Find it', startedAt: 'now' };
    expect(delegationFrame('team', start)).toEqual({
      type: 'agent.start',
      step: 'team',
      message: 'team › researcher started',
      data: {
        agent: 'researcher',
        run_id: 'run_r',
        parent_run_id: 'run_team',
        path: ['team', 'researcher'],
        depth: 1,
        tool_call_id: 'c1',
        input: 'Find it',
      },
    });
    const failed = delegationFrame('team', {
      type: 'agent-event',
      agent: 'researcher',
      runId: 'run_r',
      path: place.path,
      depth: 1,
      event: {
        type: 'tool-call-result',
        toolCallId: 't1',
        toolName: 'lookup',
        output: null,
        error: { code: 'tool_failed', message: 'down' },
        durationMs: 4.6,
      },
    });
    expect(failed).toMatchObject({
      type: 'agent.event',
      message: 'lookup answered team › researcher with tool_failed',
      data: { event: 'tool-call-result', tool: 'lookup', ok: false, duration_ms: 5 },
      error: { code: 'tool_failed', message: 'down' },
    });
    const finish = delegationFrame('team', {
      type: 'agent-finish',
      ...place,
      toolCallId: 'c1',
      finishReason: 'stop',
      usage: emptyUsage(),
      durationMs: 12.2,
    });
    expect(finish).toMatchObject({ type: 'agent.finish', data: { finish_reason: 'stop', duration_ms: 12 } });
  });

  it("unwraps a nested workflow's step events, and leaves text and model calls out", () => {
    const start: AgentEvent = { type: 'agent-start', ...place, toolCallId: 'c1', input: 'x', startedAt: 'now' };
    const wrapped: AgentEvent = { type: 'workflow-step-event', workflow: 'inner', step: 'deep', event: start };
    expect(delegationFrame('outer', wrapped)).toMatchObject({ type: 'agent.start', step: 'outer' });
    expect(delegationFrame('outer', { type: 'text-delta', delta: 'hi' })).toBeUndefined();
    const nestedText = {
      type: 'agent-event',
      agent: 'a',
      runId: 'r',
      path: ['a'],
      depth: 1,
      event: { type: 'text-delta', delta: 'hi' },
    };
    expect(delegationFrame('outer', nestedText as AgentEvent)).toBeUndefined();
  });
});
