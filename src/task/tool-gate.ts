import type { PresetToolResult, Processor } from '../agent/processors.ts';
import { canonicalDigest } from '../core/canonical-json.ts';
import type { Message, ToolCallPart } from '../core/messages.ts';
import type { Tool } from '../tools/define-tool.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { askApproval } from './approval-flow.ts';
import { controlPathOf, pathArguments } from './control-paths.ts';
import type { Session } from './session.ts';
import { journalToolWarnings } from './tool-warnings.ts';

/** What one agent step allows, and how its calls are recorded. */
export type StepGate = {
  step: string;
  phase: string;
  /** True when the tool may run in this step, or the reason it may not. */
  allow(tool: Tool): true | string;
  /** Checks the approved plan before each call in Act; returns the reason to refuse, if any. */
  checkPlan?(): Promise<string | undefined>;
  planSig: string | null;
  /** Called before each model call with the history, so budgets can refuse it. */
  beforeModelCall?(messages: readonly Message[]): void;
  /** After a tool call: a reason to end the step now (e.g. the model asked to re-plan), or undefined. */
  haltAfterTool?(call: ToolCallPart): string | undefined;
};

/**
 * The processor every governed agent step runs through. Before a tool call it: reuses a result journaled before a
 * crash; asks approval to re-run a non-idempotent call whose result was lost; blocks tools the step does not allow
 * (journaled as `tool.blocked`); blocks writes whose path argument names a control file (approvals, plan, journal,
 * state: an early refusal by the text, while the path guard enforces it on the real path); and refuses every call
 * once the plan was edited after approval. The run's policy (`governedPolicy`) decides next, approvals included (the
 * spec's `require_tools` is one of its rules). Last, it journals `tool.call` and marks the call in `unflushed`: the
 * tool itself, wrapped by {@link durableFirst}, makes that record durable before it acts. After the call, it
 * journals `tool.result`, and an exec tool's `warnings` as `warning` events (see `journalToolWarnings`).
 */
export function createToolGate(
  session: Session,
  registry: ToolRegistry,
  current: () => StepGate | undefined,
  unflushed: Set<string>,
): { checks: Processor; journal: Processor } {
  // Calls answered from the journal already have their tool.result there.
  const recoveredIds = new Set<string>();
  const checks: Processor = {
    name: 'governed-tool-checks',
    pre: ({ messages }) => {
      current()?.beforeModelCall?.(messages);
      return undefined;
    },
    preTool: async ({ call }) => {
      const gate = current();
      if (!gate) return undefined;
      const tool = registry.get(call.toolName);
      const recovered = await recover(session, gate, call, tool);
      if (recovered && 'result' in recovered) recoveredIds.add(call.toolCallId);
      if (recovered) return recovered;
      if (!tool) return undefined; // runToolCall answers unknown tools itself.
      const refusal = await refuse(gate, call, tool);
      return refusal ? block(session, gate, call, refusal) : undefined;
    },
  };
  const journal: Processor = {
    name: 'governed-tool-journal',
    preTool: async ({ call }) => {
      const gate = current();
      const tool = registry.get(call.toolName);
      if (gate && tool) journalCall(session, gate, call, tool, canonicalDigest(call.input ?? null));
      if (gate && tool && tool.effects !== 'read') unflushed.add(call.toolCallId);
      return undefined;
    },
    postTool: ({ call, outcome }) => {
      const gate = current();
      if (!gate) return undefined;
      const journaled = outcome.error?.code !== 'policy_denied' && !recoveredIds.delete(call.toolCallId);
      if (journaled) {
        session.emit({
          type: 'tool.result',
          step: gate.step,
          step_kind: gate.phase,
          message: `${call.toolName} ${outcome.ok ? 'ok' : `failed: ${outcome.error?.code}`}`,
          data: {
            tool_call_id: call.toolCallId,
            tool: call.toolName,
            ok: outcome.ok,
            model_output: outcome.modelOutput,
            duration_ms: Math.round(outcome.durationMs * 1000) / 1000,
          },
          error: outcome.error,
        });
        journalToolWarnings(session, registry.get(call.toolName), outcome);
      }
      const halt = gate.haltAfterTool?.(call);
      return halt === undefined ? undefined : { halt };
    },
  };
  return { checks, journal };
}

// Why a call may not run, or undefined: the step does not allow the tool, it writes a control file, or the approved
// plan was edited. Approvals (the spec's `require_tools` among them) are the policy's, which runs next.
async function refuse(gate: StepGate, call: ToolCallPart, tool: Tool): Promise<string | undefined> {
  const allowed = gate.allow(tool);
  if (allowed !== true) return allowed;
  if (tool.effects === 'write' || tool.effects === 'exec') {
    const control = pathArguments(call.input)
      .map(controlPathOf)
      .find((path) => path !== undefined);
    if (control)
      return `${control} belongs to the runner: tools may not write the run's approvals, plan, journal, state or step records`;
  }
  return gate.checkPlan?.();
}

function journalCall(session: Session, gate: StepGate, call: ToolCallPart, tool: Tool, argsDigest: string): void {
  session.emit({
    type: 'tool.call',
    step: gate.step,
    step_kind: gate.phase,
    message: `${tool.name}(${preview(session, call.input)})`,
    data: {
      tool_call_id: call.toolCallId,
      tool: tool.name,
      args: call.input,
      args_digest: argsDigest,
      effects: tool.effects,
      idempotent: tool.idempotent,
    },
  });
}

/**
 * The tool, made to flush the journal before it acts when its call was journaled by the gate (in `unflushed`): a
 * side effect may only happen once the journal durably says it was about to. Calls the model makes side by side are
 * all journaled before any of them runs, so they share one fsync. A tool that may write files has what it wrote
 * made durable (`toolWrites`) before it returns, so before its result is journaled.
 */
export function durableFirst(session: Session, tool: Tool, unflushed: Set<string>): Tool {
  if (tool.effects === 'read') return tool;
  const writes = tool.effects === 'write' || tool.effects === 'exec';
  return {
    ...tool,
    execute: async (input, context) => {
      if (unflushed.delete(context.toolCallId)) await session.journal.flush();
      context.signal.throwIfAborted();
      if (!writes) return tool.execute(input, context);
      await session.toolWrites.begin();
      try {
        return await tool.execute(input, context);
      } finally {
        await session.toolWrites.end();
      }
    },
  };
}

async function recover(
  session: Session,
  gate: StepGate,
  call: ToolCallPart,
  tool: Tool | undefined,
): Promise<{ result: PresetToolResult } | { block: string } | undefined> {
  const journaled = session.fold.toolCalls.get(call.toolCallId);
  if (!journaled || journaled.step !== gate.step) return undefined;
  if (journaled.result) {
    const { ok, modelOutput, output, error } = journaled.result;
    return {
      result: {
        ok,
        output,
        modelOutput: modelOutput as PresetToolResult['modelOutput'],
        ...(error ? { error: error as PresetToolResult['error'] & object } : {}),
      },
    };
  }
  session.fold.toolCalls.delete(call.toolCallId);
  if (journaled.idempotent || tool?.idempotent) return undefined;
  const outcome = await askApproval(session, gate.step, {
    type: 'tool',
    toolName: call.toolName,
    toolArgs: call.input,
    argsDigest: journaled.argsDigest,
    toolCallId: call.toolCallId,
    planSig: gate.planSig,
    rationale: 'uncertain_after_crash',
    uncertain: true,
  });
  if (outcome.decision === 'approved') return undefined;
  return block(session, gate, call, `not re-run after a crash: ${outcome.decision} by ${outcome.decidedBy}`);
}

function block(session: Session, gate: StepGate, call: ToolCallPart, reason: string): { block: string } {
  session.emit({
    type: 'tool.blocked',
    step: gate.step,
    step_kind: gate.phase,
    message: `${call.toolName} blocked: ${reason}`,
    data: { tool_call_id: call.toolCallId, tool: call.toolName, reason },
  });
  return { block: reason };
}

// Redacted before it is cut: a secret cut in two no longer matches, and the journal would then keep its first half.
function preview(session: Session, input: unknown): string {
  const text = JSON.stringify(session.redact(input ?? null));
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
