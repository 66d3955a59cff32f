import type { Span } from '@opentelemetry/api';
import type { Redactor } from '../core/redact.ts';
import { countFinish, countPhase, metering } from './metrics.ts';
import { capturesContent, contentAttribute, inSpan, markError, tracing, withSpanRedactor } from './telemetry.ts';

/** How an agent run or a governed task ended, as its span records it. */
export type RunEnd = {
  finishReason: string;
  error?: { code: string; message: string } | undefined;
  inputTokens?: number;
  outputTokens?: number;
};

/**
 * Runs an agent execution in an `invoke_agent <name>` span (GenAI agent span). A sub-agent started inside a tool
 * call or another agent's run nests under it through the active context. Counts `agent.finish_reason`.
 */
export function traceAgentRun<T>(
  agent: { name: string; runId: string },
  run: () => Promise<T>,
  ending: (value: T) => RunEnd,
): Promise<T> {
  if (!tracing() && !metering()) return run();
  const attributes = {
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': agent.name,
    'gen_ai.agent.id': agent.name,
    'agency.run.id': agent.runId,
  };
  return inSpan(`invoke_agent ${agent.name}`, attributes, run, {
    end: (span, value) => endRun(span, ending(value)),
  }).then((value) => {
    countFinish(ending(value).finishReason, { 'agency.run.kind': 'agent', 'gen_ai.agent.name': agent.name });
    return value;
  });
}

/**
 * Runs a governed task in an `invoke_workflow <loop>` span, with `agency.task.id`; its phases, agent runs, model and
 * tool calls nest under it, and content recorded within it is scrubbed with the runner's `redactor`. Counts
 * `agent.finish_reason` with the task's stop reason.
 */
export function traceTask<T>(
  task: { id: string; loop: string; redactor: Redactor },
  run: () => Promise<T>,
  ending: (value: T) => RunEnd | undefined,
): Promise<T> {
  const attributes = {
    'gen_ai.operation.name': 'invoke_workflow',
    'gen_ai.workflow.name': task.loop,
    'agency.task.id': task.id,
  };
  return withSpanRedactor(task.redactor, () =>
    inSpan(`invoke_workflow ${task.loop}`, attributes, run, {
      end: (span, value) => {
        const end = ending(value);
        if (end) endRun(span, end);
      },
    }),
  ).then((value) => {
    const end = ending(value);
    if (end) countFinish(end.finishReason, { 'agency.run.kind': 'task', 'gen_ai.workflow.name': task.loop });
    return value;
  });
}

/** Runs one governed phase (gather, plan, approve, act, verify, replan) in a `phase <name>` span. Counts `agent.phase`. */
export function tracePhase<T>(phase: { name: string; taskId: string }, work: () => Promise<T>): Promise<T> {
  countPhase(phase.name);
  return inSpan(`phase ${phase.name}`, { 'agency.phase': phase.name, 'agency.task.id': phase.taskId }, work);
}

/** Runs one durable step of a governed loop in a `step <id>` span; a step replayed from the journal has none. */
export function traceStep<T>(step: { id: string; kind: string; taskId: string }, work: () => Promise<T>): Promise<T> {
  const attributes = { 'agency.step.id': step.id, 'agency.step.kind': step.kind, 'agency.task.id': step.taskId };
  return inSpan(`step ${step.id}`, attributes, work);
}

/** What a tool call's span records of its outcome. */
export type ToolEnd = { ok: boolean; output?: unknown; error?: { code: string; message: string } | undefined };

/**
 * Runs one tool call in an `execute_tool <name>` span (GenAI execute-tool span). With content recording on, the
 * arguments and the result are recorded, redacted. A failed call marks the span with its error code.
 */
export function traceToolCall<T extends ToolEnd>(
  call: { name: string; callId: string; input: unknown },
  run: () => Promise<T>,
): Promise<T> {
  if (!tracing()) return run();
  const attributes = {
    'gen_ai.operation.name': 'execute_tool',
    'gen_ai.tool.name': call.name,
    'gen_ai.tool.call.id': call.callId,
    'gen_ai.tool.type': 'function',
  };
  return inSpan(
    `execute_tool ${call.name}`,
    attributes,
    async (span) => {
      if (capturesContent() && span.isRecording())
        span.setAttribute('gen_ai.tool.call.arguments', contentAttribute(call.input));
      return run();
    },
    {
      end: (span, outcome) => {
        if (capturesContent()) span.setAttribute('gen_ai.tool.call.result', contentAttribute(outcome.output ?? null));
        if (!outcome.ok) markError(span, outcome.error?.message ?? 'tool call failed', outcome.error?.code);
      },
    },
  );
}

function endRun(span: Span, end: RunEnd): void {
  span.setAttribute('agency.finish_reason', end.finishReason);
  if (end.inputTokens !== undefined) span.setAttribute('gen_ai.usage.input_tokens', end.inputTokens);
  if (end.outputTokens !== undefined) span.setAttribute('gen_ai.usage.output_tokens', end.outputTokens);
  if (end.error) markError(span, end.error.message, end.error.code);
}
