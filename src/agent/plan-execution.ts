// Structured plan execution: the `execute_plan` tool lets a model issue a batch of tool calls as one call. The loop
// never runs it as a tool: when the model calls it, its calls take its place in the turn, each one a tool call of
// its own (checked by every `preTool` processor, the policy and approvals included, run on the pool, recorded,
// traced), and their results are folded back into one result for the model's `execute_plan` call.
import { z } from 'zod';
import { AgencyError } from '../core/errors.ts';
import type { JsonValue, ToolCallPart, ToolResultOutput } from '../core/messages.ts';
import { defineTool, type Tool } from '../tools/define-tool.ts';
import type { ToolCallOutcome } from '../tools/run-tool-call.ts';

/** The plan tool's name. */
export const PLAN_TOOL_NAME = 'execute_plan';

/** Calls one plan may hold. */
export const MAX_PLAN_CALLS = 16;

/** Where a plan's calls sit in the expanded turn: `count` calls from index `first`, in the plan's order. */
export type PlanGroup = { toolCallId: string; first: number; count: number };

const planInput = z.object({
  calls: z
    .array(
      z.object({
        tool: z.string().min(1).describe('The name of one of your other tools'),
        input: z.record(z.string(), z.unknown()).default({}).describe("That tool's arguments"),
      }),
    )
    .min(1)
    .max(MAX_PLAN_CALLS)
    .describe('The tool calls to run, all at once, in one step'),
});

const planTools = new WeakSet<Tool>();

/**
 * The `execute_plan` tool, for `LLMAgent`'s `planExecution` option. An agent whose tools include it runs a call to
 * it as the calls it lists; on its own (outside an agent loop) it refuses to run.
 */
export function planExecutionTool(): Tool {
  const tool = defineTool({
    name: PLAN_TOOL_NAME,
    description:
      `Run up to ${MAX_PLAN_CALLS} calls of your other tools in one step, when you already know all of them ` +
      '(they run at once, as parallel tool calls do). Returns each call\'s result in order: {"results": ' +
      '[{"tool", "ok", "output" | "error"}]}.',
    input: planInput,
    effects: 'read',
    execute: () => {
      throw new AgencyError(
        'invalid_argument',
        `${PLAN_TOOL_NAME} runs only inside an agent loop, which runs each of its calls as a tool call of its own; ` +
          'call the tools directly',
      );
    },
  });
  planTools.add(tool);
  return tool;
}

/** Whether a tool is the plan tool made by {@link planExecutionTool}. */
export const isPlanTool = (tool: Tool | undefined): boolean => tool !== undefined && planTools.has(tool);

/**
 * Puts each plan's calls in the place of the call to the plan tool. A call whose arguments are not a valid plan
 * stays as it is, so it runs and fails with the schema's own message; a plan inside a plan is not expanded again.
 * The calls of a plan get the ids `<plan call id>:1`, `:2`, ….
 */
export function expandPlans(
  calls: readonly ToolCallPart[],
  isPlan: (name: string) => boolean,
): { calls: ToolCallPart[]; plans: PlanGroup[] } {
  const expanded: ToolCallPart[] = [];
  const plans: PlanGroup[] = [];
  for (const call of calls) {
    const plan = isPlan(call.toolName) && call.inputError === undefined ? planInput.safeParse(call.input) : undefined;
    if (!plan?.success) {
      expanded.push(call);
      continue;
    }
    plans.push({ toolCallId: call.toolCallId, first: expanded.length, count: plan.data.calls.length });
    plan.data.calls.forEach((step, index) =>
      expanded.push({
        type: 'tool-call',
        toolCallId: `${call.toolCallId}:${index + 1}`,
        toolName: step.tool,
        input: step.input,
      }),
    );
  }
  return { calls: expanded, plans };
}

/** Folds each plan's outcomes back into one outcome for the model's call to the plan tool. */
export function foldPlans(outcomes: readonly ToolCallOutcome[], plans: readonly PlanGroup[] = []): ToolCallOutcome[] {
  if (plans.length === 0) return [...outcomes];
  const folded: ToolCallOutcome[] = [];
  let next = 0;
  for (const plan of plans) {
    folded.push(...outcomes.slice(next, plan.first));
    folded.push(planOutcome(plan.toolCallId, outcomes.slice(plan.first, plan.first + plan.count)));
    next = plan.first + plan.count;
  }
  folded.push(...outcomes.slice(next));
  return folded;
}

function planOutcome(toolCallId: string, members: readonly ToolCallOutcome[]): ToolCallOutcome {
  const results = members.map((member): JsonValue =>
    member.ok
      ? { tool: member.toolName, ok: true, output: valueOf(member.modelOutput) }
      : { tool: member.toolName, ok: false, error: member.error?.message ?? String(valueOf(member.modelOutput)) },
  );
  const value: JsonValue = { results };
  return {
    toolCallId,
    toolName: PLAN_TOOL_NAME,
    ok: true,
    output: value,
    modelOutput: { type: 'json', value },
    durationMs: Math.max(0, ...members.map((member) => member.durationMs)),
  };
}

function valueOf(output: ToolResultOutput): JsonValue {
  switch (output.type) {
    case 'text':
    case 'error-text':
    case 'json':
    case 'error-json':
      return output.value;
    case 'execution-denied':
      return output.reason ?? 'execution denied';
    case 'content':
      return output.value.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`));
  }
}
