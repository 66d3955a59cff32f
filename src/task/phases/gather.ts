import type { Tool } from '../../tools/define-tool.ts';
import type { PhaseContext } from '../loop.ts';
import {
  addSources,
  appendNote,
  findingsText,
  gatherNote,
  sourcesFromOutputs,
  toolOutputsOf,
} from '../progress-files.ts';

/** Tools Gather may use: read-only ones, and idempotent network reads such as `http_fetch`. */
export function isGatherTool(tool: Tool): boolean {
  return tool.effects === 'read' || (tool.effects === 'network' && tool.idempotent);
}

/**
 * Gather: explores the inputs with read-only tools, time-boxed to a share of the iterations, and writes
 * `findings.md`, `sources.jsonl` and a line in `notes.md`.
 */
export async function gatherPhase(
  context: PhaseContext,
  { maxIterations = 6 } = {},
): Promise<{ findings: string; sources: number }> {
  const ask = context.prompts.render('runner.gather');
  const gathered = await context.agentStep('gather', {
    phase: 'gather',
    input: ask.text,
    promptRefs: [ask.ref],
    context: await context.contextFor('gather'),
    planSig: null,
    maxIterations,
    allow: (tool) =>
      isGatherTool(tool) ? true : `Gather uses read-only tools only; ${tool.name} (${tool.effects}) waits for Act`,
  });
  return context.step('record-findings', 'files', async (id) => {
    const { paths } = context;
    await context.session.files.write(paths.findings, findingsText(gathered.output));
    const sources = context.session.redact(sourcesFromOutputs(id, toolOutputsOf(gathered.messages)));
    const added = await addSources(context.session.files, paths, sources);
    await appendNote(context.session.files, paths, gatherNote(gathered.toolCalls, added));
    return { findings: gathered.output, sources: added };
  });
}
