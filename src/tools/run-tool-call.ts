import type { ErrorCode } from '../core/error-codes.ts';
import { AgencyError, errorMessage } from '../core/errors.ts';
import type { JsonValue, ToolCallPart, ToolResultOutput } from '../core/messages.ts';
import { isSuspendRequest } from './suspend-request.ts';
import type { ToolCallOutcome } from '../core/tool-types.ts';
import type { Tool, ToolTask } from './define-tool.ts';

/** A tool call to run: the model's call part, or the same fields. */
export type ToolCall = Pick<ToolCallPart, 'toolCallId' | 'toolName' | 'input' | 'inputError'>;

export type { ToolCallOutcome };

/** Options for {@link runToolCall}. */
export type RunToolCallOptions = {
  /** Aborting it cancels the call, which then resolves at once with an error result. */
  signal?: AbortSignal;
  task?: ToolTask;
  /** Overrides the tool's own timeout, e.g. from a budget. */
  timeoutMs?: number;
  /** Passed to the tool as `context.resumeData` when its run is resumed. */
  resumeData?: JsonValue | undefined;
  /** The names offered to the model, listed when it calls one that does not exist. */
  available?: readonly string[];
  now?: () => number;
};

/**
 * Runs one tool call. It validates the arguments against the tool's schema, enforces the timeout and honours
 * cancellation. It never throws: an unknown tool, invalid JSON, arguments that fail the schema, a tool that throws,
 * one that times out, or a cancelled call each become an error result whose message tells the model what to do.
 */
export async function runToolCall(
  tool: Tool | undefined,
  call: ToolCall,
  {
    signal,
    task,
    timeoutMs,
    resumeData,
    available = [],
    now = performance.now.bind(performance),
  }: RunToolCallOptions = {},
): Promise<ToolCallOutcome> {
  const started = now();
  const finish = (
    result: Pick<ToolCallOutcome, 'ok' | 'output' | 'error' | 'modelOutput' | 'suspend'>,
  ): ToolCallOutcome => ({
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    ...result,
    durationMs: now() - started,
  });
  const fail = (code: ErrorCode, message: string) =>
    finish({ ok: false, error: { code, message }, modelOutput: { type: 'error-text', value: message } });

  if (!tool) {
    const names = available.length > 0 ? available.join(', ') : '(none)';
    return fail(
      'tool_not_found',
      `Unknown tool "${call.toolName}". Available tools: ${names}. Call one of these by its exact name.`,
    );
  }
  if (call.inputError !== undefined) {
    return fail(
      'tool_invalid_input',
      `The arguments for tool "${tool.name}" are not valid JSON (${call.inputError}). ` +
        "Send a single JSON object that matches the tool's schema.",
    );
  }
  const parsed = tool.input.safeParse(call.input);
  if (!parsed.success) {
    const issues = parsed.error.issues.map(
      (issue) => `- ${issue.path.map(String).join('.') || '(arguments)'}: ${issue.message}`,
    );
    return fail(
      'tool_invalid_input',
      `Invalid arguments for tool "${tool.name}":\n${issues.join('\n')}\nFix these and call "${tool.name}" again.`,
    );
  }
  if (signal?.aborted) return fail('aborted', `Tool "${tool.name}" was cancelled before it started.`);

  const limit = timeoutMs ?? tool.timeoutMs;
  const settled = await runWithLimit(tool, parsed.data, {
    toolCallId: call.toolCallId,
    task,
    resumeData,
    signal,
    limit,
  });
  if (settled.kind === 'timeout') {
    return fail(
      'tool_timeout',
      `Tool "${tool.name}" timed out after ${limit} ms and was cancelled. Try a smaller request or another approach.`,
    );
  }
  if (settled.kind === 'aborted') return fail('aborted', `Tool "${tool.name}" was cancelled before it finished.`);
  if (settled.kind === 'error' && isSuspendRequest(settled.error)) {
    const message = `Tool "${tool.name}" is waiting for human input.`;
    return finish({
      ok: false,
      error: { code: 'halted', message },
      suspend: { payload: settled.error.payload },
      modelOutput: { type: 'error-text', value: message },
    });
  }
  if (settled.kind === 'error') {
    const code = AgencyError.isInstance(settled.error) ? settled.error.code : 'tool_failed';
    return fail(code, `Tool "${tool.name}" failed: ${errorMessage(settled.error)}`);
  }
  let modelOutput: ToolResultOutput;
  try {
    modelOutput = tool.toModelOutput ? tool.toModelOutput(settled.value) : defaultModelOutput(settled.value);
  } catch (error) {
    return fail(
      'tool_failed',
      `Tool "${tool.name}" returned a value that cannot be sent to the model: ${errorMessage(error)}`,
    );
  }
  return finish({ ok: true, output: settled.value, modelOutput });
}

type Settled =
  { kind: 'ok'; value: unknown } | { kind: 'error'; error: unknown } | { kind: 'timeout' } | { kind: 'aborted' };

// A tool that returns synchronously has finished before any timer could fire, so it settles at once, without arming
// the timeout or listening for an abort.
function runWithLimit(
  tool: Tool,
  input: unknown,
  options: {
    toolCallId: string;
    task: ToolTask | undefined;
    resumeData: JsonValue | undefined;
    signal: AbortSignal | undefined;
    limit: number;
  },
): Settled | Promise<Settled> {
  const { toolCallId, task, resumeData, signal, limit } = options;
  const controller = new AbortController();
  const cancel = (kind: 'timeout' | 'aborted') =>
    controller.abort(new AgencyError(kind === 'timeout' ? 'tool_timeout' : 'aborted', `tool ${kind}`));
  const context = {
    signal: controller.signal,
    toolCallId,
    task,
    resumeData,
  };
  let returned: unknown;
  let thrown: { error: unknown } | undefined;
  try {
    returned = tool.execute(input, context);
  } catch (error) {
    thrown = { error };
  }
  if (thrown || !isThenable(returned)) {
    if (signal?.aborted) {
      cancel('aborted');
      return { kind: 'aborted' };
    }
    return thrown ? { kind: 'error', error: thrown.error } : { kind: 'ok', value: returned };
  }
  return new Promise<Settled>((resolve) => {
    const settle = (result: Settled) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (result.kind === 'timeout' || result.kind === 'aborted') cancel(result.kind);
      resolve(result);
    };
    const onAbort = () => settle({ kind: 'aborted' });
    const timer = setTimeout(() => settle({ kind: 'timeout' }), limit);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(returned).then(
      (value) => settle({ kind: 'ok', value }),
      (error: unknown) => settle({ kind: 'error', error }),
    );
  });
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Strings become text; anything else becomes JSON (dates as ISO strings, `undefined` fields dropped). */
export function defaultModelOutput(output: unknown): ToolResultOutput {
  if (typeof output === 'string') return { type: 'text', value: output };
  if (output === undefined) return { type: 'text', value: '' };
  const text = JSON.stringify(output);
  if (text === undefined) throw new Error(`${typeof output} is not JSON`);
  return { type: 'json', value: JSON.parse(text) as JsonValue };
}
