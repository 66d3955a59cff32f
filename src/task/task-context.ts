import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Message } from '../core/messages.ts';
import { isTempFileName } from '../core/temp-files.ts';
import type { MemoryManager } from '../memory/memory-manager.ts';
import { assemblePrompt } from '../memory/prompt-assembly.ts';
import type { MemoryBlock } from '../memory/render-memory.ts';
import type { TaskPaths } from './layout.ts';
import type { TaskFiles } from './fs/task-files.ts';

/** What the prompts of a run's phases are built from. */
export type TaskContextSource = {
  paths: TaskPaths;
  files: TaskFiles;
  brief: string;
  /** The system prompt every phase starts with. */
  persona: string;
  memory?: MemoryManager | undefined;
  /** Seeded conversation history for a phase, shaped by the history policy and deduped against the task context. */
  history?: (phase: string, taskContext: string) => Promise<Message[]>;
};

/**
 * The prompt of each phase of a run up to its ask, built with `assemblePrompt` in DESIGN's fixed order: the persona,
 * the pinned memory (built once per run, so it stays byte-identical), the task context (the brief, the input files,
 * the findings once gathered), the memory recalled for the phase, then seeded history. The stable prefix and the
 * task context are marked as prompt-cache breakpoints. Nothing time-dependent goes in, so identical inputs give
 * identical prompts.
 */
export function createPhasePrompts(source: TaskContextSource): (phase: string) => Promise<Message[]> {
  let pinned: Promise<MemoryBlock> | undefined;
  return async (phase) => {
    const taskContext = await renderTaskContext(source, phase);
    const { memory } = source;
    let pinnedBlock: MemoryBlock | undefined;
    let phaseRecall: MemoryBlock | undefined;
    if (memory) {
      pinned ??= memory.buildPinned();
      pinnedBlock = await pinned;
      phaseRecall = await memory.buildPhase(phase, { text: source.brief, exclude: pinnedBlock });
    }
    const history = source.history ? await source.history(phase, taskContext) : [];
    return assemblePrompt({ persona: source.persona, pinned: pinnedBlock, taskContext, phaseRecall, history });
  };
}

async function renderTaskContext(source: TaskContextSource, phase: string): Promise<string> {
  const { paths, brief } = source;
  // The brief is quoted whole just above, and `agency.json` is the run's settings, not an input of the task: listing
  // them would only send the model to read them again.
  const files = (await listInputs(paths.task)).filter((file) => !NOT_INPUTS.has(file));
  const sections = [`# Task brief (task/brief.md)\n\n${brief.trim()}`];
  if (files.length > 0) sections.push(`Input files: ${files.map((file) => `task/${file}`).join(', ')}`);
  if (phase !== 'gather') {
    const findings = (await source.files.readText(paths.findings).catch(() => undefined)) ?? '';
    if (findings.trim()) sections.push(`# Findings (progress/findings.md)\n\n${findings.trim()}`);
  }
  return sections.join('\n\n');
}

const NOT_INPUTS = new Set(['brief.md', 'agency.json']);

async function listInputs(dir: string): Promise<string[]> {
  const found: string[] = [];
  const walk = async (current: string) => {
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = join(current, entry.name);
      if (entry.isDirectory()) await walk(full);
      else if (entry.isFile() && !isTempFileName(entry.name)) found.push(relative(dir, full));
      if (found.length >= 200) return;
    }
  };
  await walk(dir);
  return found;
}
