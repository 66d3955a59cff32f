import { z } from 'zod';
import { AgencyError } from '../../core/errors.ts';
import type { JsonValue } from '../../core/messages.ts';
import { isoTime } from '../../agent/iso-time.ts';
import { agentResult, answered } from '../../agent/result.ts';
import { emptyUsage } from '../../core/usage.ts';
import type { Agent, AgentResult, AgentTask, DelegationPlace, ExecuteOptions } from '../../agent/types.ts';
import { defineTool, type Tool, type ToolContext } from '../../tools/define-tool.ts';
import { requestSuspend } from '../../tools/suspend-request.ts';
import { currentScope, forwardEvent, inDelegationFrame, type NetworkScope } from './scope.ts';

/** The longest task or context string a router may hand a sub-agent. */
export const MAX_DELEGATION_CHARS = 100_000;

const delegationInput = z.object({
  task: z.string().min(1).max(MAX_DELEGATION_CHARS).describe('The task for this agent, complete in itself'),
  context: z
    .string()
    .max(MAX_DELEGATION_CHARS)
    .optional()
    .describe('What the agent needs to know that the task does not say: earlier findings, constraints'),
});

/**
 * The tool a network's router calls to hand a task to `agent`: it has the agent's name and description, runs it
 * with the network's signal and budget, and reports its answer, or its failure as a tool error the router can act on.
 */
export function delegationTool(agent: Agent, timeoutMs: number): Tool<z.output<typeof delegationInput>, string> {
  return defineTool({
    name: agent.name,
    description: agent.description,
    input: delegationInput,
    effects: 'exec',
    idempotent: false,
    timeoutMs,
    execute: (input, context) => delegate(agent, input, context),
  });
}

async function delegate(
  agent: Agent,
  { task, context }: z.output<typeof delegationInput>,
  tool: ToolContext,
): Promise<string> {
  const scope = currentScope(agent.name);
  const pending = scope.pending.get(tool.toolCallId);
  scope.pending.delete(tool.toolCallId);
  const runId = pending?.runId ?? scope.newId('run');
  const place: DelegationPlace = {
    agent: agent.name,
    runId,
    parentRunId: scope.runId,
    path: [...scope.path, agent.name],
    depth: scope.path.length,
  };
  const input = context ? `${task}\n\nContext:\n${context}` : task;
  const started = scope.now();
  scope.emit({ type: 'agent-start', ...place, toolCallId: tool.toolCallId, input, startedAt: isoTime(started) });
  const options: ExecuteOptions = {
    signal: AbortSignal.any([tool.signal, scope.stopDelegations.signal]),
    onEvent: (event) => forwardEvent(scope, place, event),
  };
  const subTask: AgentTask = {
    input,
    ...(tool.task?.context ? { context: tool.task.context as Record<string, JsonValue> } : {}),
  };
  const result = await inDelegationFrame({ path: place.path, meter: scope.meter }, () =>
    pending ? pending.handle.resume(tool.resumeData, options) : agent.execute(subTask, { ...options, runId }),
  ).catch((error: unknown) => failed(error, runId, started));
  return settle(scope, place, tool.toolCallId, result, started);
}

// Reports the sub-agent's end, and turns it into what the router sees: its answer, a suspension, or an error.
function settle(scope: NetworkScope, place: DelegationPlace, toolCallId: string, result: AgentResult, started: number) {
  scope.delegations.set(toolCallId, { runId: place.runId, usage: result.usage });
  const error = errorOf(scope, place.agent, result);
  scope.emit({
    type: 'agent-finish',
    ...place,
    toolCallId,
    finishReason: result.finishReason,
    usage: result.usage,
    durationMs: Math.max(0, scope.now() - started),
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  });
  if (result.finishReason === 'suspended' && result.suspended) {
    scope.pending.set(toolCallId, { runId: place.runId, handle: result.suspended });
    requestSuspend(result.suspended.payload);
  }
  if (error) throw error;
  return result.output;
}

function errorOf(scope: NetworkScope, agent: string, result: AgentResult): AgencyError | undefined {
  if (answered(result)) return undefined;
  if (scope.stopDelegations.signal.aborted) return AgencyError.from(scope.stopDelegations.signal.reason);
  const code = result.error?.code ?? (result.finishReason === 'aborted' ? 'aborted' : 'internal');
  const why = result.error?.message ?? `it ended with "${result.finishReason}"`;
  return new AgencyError(code, `Agent "${agent}" did not finish its task: ${why}`);
}

function failed(error: unknown, runId: string, started: number): AgentResult {
  const wrapped = AgencyError.from(error);
  const at = isoTime(started);
  return agentResult(
    { runId, startedAt: at, usage: emptyUsage() },
    { reason: wrapped.code === 'aborted' ? 'aborted' : 'error', error: wrapped },
    at,
  );
}
