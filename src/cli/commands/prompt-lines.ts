import type { PromptAuditEntry, PromptTemplate } from '../../prompts/prompt-store.ts';
import { promptRef } from '../../prompts/prompt-store.ts';

/** A version as `agency prompts ls` lists it: where it comes from beside its fields. */
export type ListedPrompt = Omit<PromptTemplate, 'text'> & { source: 'built-in' | 'store' };

/**
 * The lines of `agency prompts ls`: a header, then one version a line (id@version, source, author, time, variables),
 * in columns.
 */
export function listLines(templates: readonly ListedPrompt[]): string[] {
  const rows = [
    ['VERSION', 'SOURCE', 'BY', 'CREATED', 'VARIABLES'],
    ...templates.map((template) => [
      promptRef(template),
      template.source,
      template.createdBy,
      template.createdAt,
      template.requiredVars.join(', ') || '-',
    ]),
  ];
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
  return rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0))).join('  '),
  );
}

/** One line of `agency prompts audit`: time, version, author, what it follows, what changed, digest. */
export function auditLine(entry: PromptAuditEntry): string {
  const follows = entry.previous ? `after @${entry.previous.version}` : 'first';
  return (
    `${entry.at}  ${promptRef(entry)}  ${entry.action} by ${entry.by}  ${follows}  ` +
    `changed: ${entry.changed.join(', ') || 'nothing'}  sha256:${entry.sha256.slice(0, 12)}`
  );
}
