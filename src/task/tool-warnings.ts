import type { ToolCallOutcome } from '../core/tool-types.ts';
import type { Tool } from '../tools/define-tool.ts';
import type { Session } from './session.ts';

/**
 * Journals the `warnings` an `exec` tool's result carries, such as a sandbox limit this host does not enforce
 * (`sandbox_exec`, `test_runner`), as `warning` events named after the tool, each once per run: they then reach the
 * run's result and `agency status`, not only the `tool.result` frame. Other tools' results are left alone, so a
 * read or network tool cannot write the run's warnings.
 */
export function journalToolWarnings(
  session: Pick<Session, 'warn' | 'warnings'>,
  tool: Pick<Tool, 'name' | 'effects'> | undefined,
  outcome: Pick<ToolCallOutcome, 'ok' | 'output'>,
): void {
  if (tool?.effects !== 'exec' || !outcome.ok) return;
  const warnings = (outcome.output as { warnings?: unknown } | null | undefined)?.warnings;
  if (!Array.isArray(warnings)) return;
  for (const warning of warnings) {
    if (typeof warning !== 'string') continue;
    const line = `${tool.name}: ${warning}`;
    if (!session.warnings.includes(line)) session.warn(line);
  }
}
