import { userMessage } from '../core/messages.ts';
import type { RunContext } from './run-context.ts';
import { messageChars, type RunState } from './run-state.ts';
import type { Ending } from './run-stages.ts';
import { parseStructuredAnswer, repairInstruction, structuredOutputError } from './structured-output.ts';

/**
 * Checks a final answer against the execution's schema. A valid answer ends the run with its object. An invalid
 * one starts a repair turn (a user message quoting the problems; the run goes on at its next iteration, returning
 * undefined) while repairs remain, and otherwise ends the run with `structured_output_invalid`.
 */
export function checkStructuredAnswer(
  context: RunContext,
  state: RunState,
  ending: Ending & { output: string },
  synthesis: boolean,
): Ending | undefined {
  const { structured } = context;
  if (!structured) return ending;
  const parsed = parseStructuredAnswer(structured.schema, ending.output);
  if (parsed.success) return { ...ending, object: parsed.object };
  const repairs = state.repairs ?? 0;
  if (repairs >= structured.maxRepairs) {
    return { reason: 'error', output: ending.output, error: structuredOutputError(parsed.issues, repairs) };
  }
  state.repairs = repairs + 1;
  const message = `The answer does not match the schema (${parsed.issues.join('; ')}); repair turn ${state.repairs} of ${structured.maxRepairs}`;
  state.warnings.push(message);
  context.emit?.({ type: 'warning', message });
  const instruction = userMessage(repairInstruction(parsed.issues, structured.jsonSchema, context.prompts));
  state.messages.push(instruction);
  state.historyChars += messageChars(instruction);
  state.stage = synthesis ? { at: 'pre', processor: 0, synthesis: true } : { at: 'pre', processor: 0 };
  return undefined;
}
