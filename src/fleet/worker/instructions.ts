import { readFile } from 'node:fs/promises';
import type { ExecutorKind } from '../api/worker-schemas.ts';

// The same three levels below the package root from src/fleet/worker/ and dist/fleet/worker/; dist/ has no .md
// files, so both read the ones the package ships under src/.
const DIR = new URL('../../../src/fleet/worker/instructions/', import.meta.url);

/**
 * The instructions a worker puts before every task's prompt: `instructions/agent.md`, then
 * `instructions/<executor>.md` when there is one. Read once, at start-up.
 */
export async function readInstructions(kind: ExecutorKind): Promise<string> {
  const common = await readFile(new URL('agent.md', DIR), 'utf8');
  const specific = await readFile(new URL(`${kind}.md`, DIR), 'utf8').catch(() => '');
  return [common, specific]
    .map((text) => text.trim())
    .filter(Boolean)
    .join('\n\n');
}

/**
 * The whole prompt of a new task: the worker's instructions, the project's context when the task has one, then the
 * task's own prompt, each under a heading so the model can tell them apart. A `continue` sends its prompt alone:
 * the session already has the rest.
 */
export function composePrompt({
  instructions,
  project,
  prompt,
}: {
  instructions: string;
  project?: { name: string; prompt: string } | undefined;
  prompt: string;
}): string {
  const parts = [`# Instructions\n\n${instructions}`];
  if (project) parts.push(`# Project: ${project.name}\n\n${project.prompt}`);
  parts.push(`# Task\n\n${prompt}`);
  return parts.join('\n\n');
}
