import { canonicalDigest } from '../core/canonical-json.ts';
import type { JsonValue } from '../core/messages.ts';
import { governedPolicy } from './governed-policy.ts';
import type { PhaseContext } from './loop.ts';
import { journalToolWarnings } from './tool-warnings.ts';

/** What one tool call run by a loop produced. */
export type ActionResult = { ok: boolean; output: JsonValue; error?: string };

/**
 * Runs one tool call for a loop that chooses its actions itself, journaled like any governed call and held to the
 * run's policy like the default loop's calls: a denial refuses it, a required approval (the spec's `require_tools`
 * among them) is asked through the run's broker, and changes to its arguments or output apply. The journal is
 * flushed before a tool with side effects runs.
 */
export async function runGovernedTool(context: PhaseContext, name: string, input: JsonValue): Promise<ActionResult> {
  const { session } = context;
  const tool = context.tools.get(name);
  if (!tool) return { ok: false, output: null, error: `unknown tool ${name}` };
  const argsDigest = canonicalDigest(input);
  const site = { step: `execute-${argsDigest.slice(0, 8)}`, planSig: null };
  const policy = governedPolicy(session, context.policy, context.tools, () => site);
  const call = { type: 'tool-call' as const, toolCallId: argsDigest, toolName: name, input };
  const checked = await policy.preTool({ call });
  if (checked && 'block' in checked) return { ok: false, output: null, error: checked.block };
  const checkedInput = checked && 'call' in checked ? checked.call.input : call.input;
  session.emit({
    type: 'tool.call',
    message: name,
    data: {
      tool_call_id: argsDigest,
      tool: name,
      args: (checkedInput ?? null) as JsonValue,
      args_digest: argsDigest,
      effects: tool.effects,
      idempotent: tool.idempotent,
    },
  });
  if (tool.effects !== 'read') await session.journal.flush();
  const writes = tool.effects === 'write' || tool.effects === 'exec';
  if (writes) await session.toolWrites.begin();
  const ran = await context.tools
    .run({ ...call, input: checkedInput }, { signal: session.signal })
    .finally(async () => {
      if (writes) await session.toolWrites.end();
    });
  const filtered = await policy.postTool({ call, outcome: ran });
  const outcome = filtered && 'outcome' in filtered ? filtered.outcome : ran;
  session.emit({
    type: 'tool.result',
    message: `${name} ${outcome.ok ? 'ok' : 'failed'}`,
    data: { tool_call_id: argsDigest, tool: name, ok: outcome.ok, model_output: outcome.modelOutput },
    ...(outcome.error ? { error: outcome.error } : {}),
  });
  journalToolWarnings(session, tool, outcome);
  return {
    ok: outcome.ok,
    output: (outcome.ok ? (outcome.modelOutput as { value?: JsonValue }).value : null) ?? null,
    ...(outcome.error ? { error: outcome.error.message } : {}),
  };
}
