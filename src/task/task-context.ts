import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Message } from '../core/messages.ts';
import { isTempFileName } from '../core/temp-files.ts';
import type { MemoryManager } from '../memory/memory-manager.ts';
import type { TaskPaths } from './layout.ts';
import type { TaskFiles } from './fs/task-files.ts';

/** What the task context of a phase is built from. */
export type TaskContextSource = {
  paths: TaskPaths;
  files: TaskFiles;
  brief: string;
  memory?: MemoryManager;
  /** Seeded conversation history for a phase, shaped by the history policy and deduped against the task context. */
  history?: (phase: string, taskContext: string) => Promise<Message[]>;
};

/**
 * The messages a phase sees between the stable prefix and its ask, in DESIGN's fixed order: the task context (the
 * brief, the input files, the findings once gathered), the memory recalled for the phase, then seeded history.
 * Nothing time-dependent goes in, so identical inputs give identical prompts.
 */
export async function buildPhaseContext(source: TaskContextSource, phase: string): Promise<Message[]> {
  const { paths, brief } = source;
  const files = await listInputs(paths.task);
  const sections = [`# Task brief (task/brief.md)\n\n${brief.trim()}`];
  sections.push(
    `# Input files under task/ (read them with the read-only tools)\n\n${files.map((file) => `- task/${file}`).join('\n')}`,
  );
  if (phase !== 'gather') {
    const findings = (await source.files.readText(paths.findings).catch(() => undefined)) ?? '';
    if (findings.trim()) sections.push(`# Findings (progress/findings.md)\n\n${findings.trim()}`);
  }
  const messages: Message[] = [{ role: 'user', content: [{ type: 'text', text: sections.join('\n\n') }] }];
  if (source.memory) {
    const pinned = await source.memory.buildPinned();
    const recall = await source.memory.buildPhase(phase, { text: brief, exclude: pinned });
    if (recall.text)
      messages.push({
        role: 'user',
        content: [{ type: 'text', text: `# Relevant memory for ${phase}\n\n${recall.text}` }],
      });
  }
  if (source.history) {
    const taskContext = sections.join('\n\n');
    messages.push(...(await source.history(phase, taskContext)));
  }
  return mergeUserMessages(messages);
}

// Consecutive user messages are merged so every provider accepts the conversation.
function mergeUserMessages(messages: Message[]): Message[] {
  const merged: Message[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last?.role === 'user' && message.role === 'user') {
      merged[merged.length - 1] = { ...last, content: [...last.content, ...message.content] };
    } else {
      merged.push(message);
    }
  }
  return merged;
}

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
