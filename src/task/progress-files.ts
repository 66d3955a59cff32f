import { sha256Hex } from '../core/canonical-json.ts';
import type { Plan } from './contracts/plan.ts';
import type { TaskFiles } from './fs/task-files.ts';
import type { TaskPaths } from './layout.ts';

/** Appends a dated line to `progress/notes.md`. */
export async function appendNote(files: TaskFiles, paths: TaskPaths, line: string): Promise<void> {
  const current = (await files.readText(paths.notes)) ?? '# Notes\n';
  await files.write(paths.notes, `${current.replace(/\n*$/, '\n')}- ${line}\n`);
}

/** Writes `progress/todo.md` from the plan's steps, checked when `done`. */
export async function writeTodo(files: TaskFiles, paths: TaskPaths, plan: Plan, done: boolean): Promise<void> {
  const lines = plan.steps.map(
    (step) => `- [${done ? 'x' : ' '}] ${step.title}${step.tools?.length ? ` (${step.tools.join(', ')})` : ''}`,
  );
  await files.write(paths.todo, `# To do\n\n${lines.join('\n')}\n`);
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

/** Rewrites `progress/sources.jsonl` with `sources` added after the existing ones, without duplicates. */
export async function addSources(
  files: TaskFiles,
  paths: TaskPaths,
  sources: readonly SourceRecord[],
): Promise<number> {
  const existing = ((await files.readText(paths.sources)) ?? '').split('\n').filter((line) => line.trim() !== '');
  const seen = new Set(existing.map((line) => (JSON.parse(line) as SourceRecord).url));
  const added = sources.filter((source) => !seen.has(source.url) && seen.add(source.url));
  await files.write(paths.sources, [...existing, ...added.map((source) => JSON.stringify(source))].join('\n') + '\n');
  return added.length;
}
