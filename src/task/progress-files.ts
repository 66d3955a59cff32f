import { sha256Hex } from '../core/sha256.ts';
import type { Message } from '../core/messages.ts';
import type { Plan } from './contracts/plan.ts';
import type { TaskFiles } from './fs/task-files.ts';
import type { TaskPaths } from './layout.ts';

// The files a person reads in progress/ besides the journal. Each text comes from one function here, used both when
// the runner writes it and when a resume rebuilds a lost one from the journal (see restoreDerivedFiles).

/** Appends a line to `progress/notes.md`. */
export async function appendNote(files: TaskFiles, paths: TaskPaths, line: string): Promise<void> {
  const current = (await files.readText(paths.notes)) ?? NOTES_HEADER;
  await files.write(paths.notes, `${current.replace(/\n*$/, '\n')}- ${line}\n`);
}

/** The first line of `notes.md`. */
export const NOTES_HEADER = '# Notes\n';

/** The note for a gather phase's findings. */
export function gatherNote(toolCalls: number, sources: number): string {
  return `gather: findings written (${toolCalls} tool call(s), ${sources} source(s))`;
}

/** The note for a new plan version. */
export function planNote(version: number, signature: string, origin: string): string {
  return `plan: v${version} signed ${signature.slice(0, 12)}… (${origin})`;
}

/** The note for a verify attempt. */
export function verifyNote(attempt: number, passed: boolean, passedCount: number, total: number): string {
  return `verify: attempt ${attempt} ${passed ? 'passed' : 'failed'} (${passedCount}/${total})`;
}

/** The note for a run's ending. */
export function finishNote(reason: string, error?: { code: string; message: string }): string {
  return `finished: ${reason}${error ? ` (${error.code}: ${error.message})` : ''}`;
}

/** The text of `plan/NNNN.json` and `plan/current.json`. */
export function planText(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}

/** The text of `progress/todo.md`: the plan's steps, checked when `done`. */
export function todoText(plan: Plan, done: boolean): string {
  const lines = plan.steps.map(
    (step) => `- [${done ? 'x' : ' '}] ${step.title}${step.tools?.length ? ` (${step.tools.join(', ')})` : ''}`,
  );
  return `# To do\n\n${lines.join('\n')}\n`;
}

/** Writes `progress/todo.md` from the plan's steps, checked when `done`. */
export async function writeTodo(files: TaskFiles, paths: TaskPaths, plan: Plan, done: boolean): Promise<void> {
  await files.write(paths.todo, todoText(plan, done));
}

/** The text of `progress/findings.md`. */
export function findingsText(findings: string): string {
  return `${findings.trim()}\n`;
}

/** A citation in `progress/sources.jsonl`. */
export type SourceRecord = {
  url: string;
  status?: number;
  sha256?: string;
  title?: string;
  snippet?: string;
  step: string;
};

/** The outputs of the tool results in a conversation, in order. */
export function toolOutputsOf(messages: readonly Message[]): unknown[] {
  return messages.flatMap((message) =>
    message.role === 'tool'
      ? message.content.flatMap((part) =>
          part.type === 'tool-result' && 'value' in part.output ? [part.output.value] : [],
        )
      : [],
  );
}

/**
 * The sources a step's tool results point at: any successful result carrying a `url` (e.g. `http_fetch`), with its
 * content hash and the start of its text.
 */
export function sourcesFromOutputs(step: string, outputs: readonly unknown[]): SourceRecord[] {
  const sources: SourceRecord[] = [];
  for (const output of outputs) {
    if (typeof output !== 'object' || output === null) continue;
    const record = output as Record<string, unknown>;
    const url = typeof record.url === 'string' ? record.url : undefined;
    if (!url) continue;
    const body = typeof record.body === 'string' ? record.body : typeof record.text === 'string' ? record.text : '';
    const hash = typeof record.sha256 === 'string' ? record.sha256 : body ? sha256Hex(body) : undefined;
    const title =
      /<title>([^<]{1,200})<\/title>/i.exec(body)?.[1]?.trim() ?? /^#\s+(.{1,200})$/m.exec(body)?.[1]?.trim();
    sources.push({
      url,
      step,
      ...(typeof record.status === 'number' ? { status: record.status } : {}),
      ...(hash ? { sha256: hash } : {}),
      ...(title ? { title } : {}),
      ...(body ? { snippet: body.replace(/\s+/g, ' ').slice(0, 200) } : {}),
    });
  }
  return sources;
}

/** The text of `progress/sources.jsonl`: the lines already there, then the new sources, without duplicates. */
export function sourcesText(existing: readonly string[], sources: readonly SourceRecord[]): [string, number] {
  const seen = new Set(existing.map((line) => (JSON.parse(line) as SourceRecord).url));
  const added = sources.filter((source) => !seen.has(source.url) && seen.add(source.url));
  return [[...existing, ...added.map((source) => JSON.stringify(source))].join('\n') + '\n', added.length];
}

/** Rewrites `progress/sources.jsonl` with `sources` added after the existing ones, without duplicates. */
export async function addSources(
  files: TaskFiles,
  paths: TaskPaths,
  sources: readonly SourceRecord[],
): Promise<number> {
  const existing = ((await files.readText(paths.sources)) ?? '').split('\n').filter((line) => line.trim() !== '');
  const [text, added] = sourcesText(existing, sources);
  await files.write(paths.sources, text);
  return added;
}
