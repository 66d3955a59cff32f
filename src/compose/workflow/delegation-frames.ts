import type { AgentEvent } from '../../agent/types.ts';
import { usageToJson } from '../../task/budgets.ts';
import type { EventInput } from '../../task/contracts/events.ts';

// What a journaled delegation frame says of where it sits; the dashboard nests by `run_id` and `parent_run_id`.
type Place = { agent: string; runId: string; path: string[]; depth: number };

function place({ agent, runId, path, depth }: Place) {
  return { agent, run_id: runId, path, depth };
}

/**
 * The journal frame of a workflow step's event, when it is one a reader follows: a network's delegation
 * (`agent.start`, `agent.finish`) and its sub-agents' tool calls (`agent.event`). Events of a nested workflow's steps
 * are unwrapped, so a network anywhere below the step is journaled; every other event (text, model calls) is not.
 */
export function delegationFrame(step: string, event: AgentEvent): EventInput | undefined {
  switch (event.type) {
    case 'workflow-step-event':
      return delegationFrame(step, event.event);
    case 'agent-start':
      return {
        type: 'agent.start',
        step,
        message: `${event.path.join(' › ')} started`,
        data: { ...place(event), parent_run_id: event.parentRunId, tool_call_id: event.toolCallId, input: event.input },
      };
    case 'agent-finish':
      return {
        type: 'agent.finish',
        step,
        message: `${event.path.join(' › ')} finished (${event.finishReason}) in ${Math.round(event.durationMs)} ms`,
        data: {
          ...place(event),
          parent_run_id: event.parentRunId,
          tool_call_id: event.toolCallId,
          finish_reason: event.finishReason,
          duration_ms: Math.round(event.durationMs),
          usage: usageToJson(event.usage),
        },
        ...(event.error ? { error: event.error } : {}),
      };
    case 'agent-event':
      return nestedFrame(step, event);
    default:
      return undefined;
  }
}

function nestedFrame(step: string, nested: Extract<AgentEvent, { type: 'agent-event' }>): EventInput | undefined {
  const { event } = nested;
  const who = nested.path.join(' › ');
  if (event.type === 'tool-call-start') {
    return {
      type: 'agent.event',
      step,
      message: `${who} called ${event.toolName}`,
      data: {
        ...place(nested),
        event: event.type,
        tool: event.toolName,
        tool_call_id: event.toolCallId,
        input: event.input,
      },
    };
  }
  if (event.type === 'tool-call-result') {
    return {
      type: 'agent.event',
      step,
      message: `${event.toolName} answered ${who}${event.error ? ` with ${event.error.code}` : ''}`,
      data: {
        ...place(nested),
        event: event.type,
        tool: event.toolName,
        tool_call_id: event.toolCallId,
        ok: !event.error,
        duration_ms: Math.round(event.durationMs),
      },
      ...(event.error ? { error: event.error } : {}),
    };
  }
  return undefined;
}
