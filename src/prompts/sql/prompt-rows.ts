import { AgencyError } from '../../core/errors.ts';
import { storedTemplateProblems } from '../prompt-checks.ts';
import type { PromptAuditEntry, PromptTemplate } from '../prompt-store.ts';

// The SQL stores keep two tables, `<prefix>_versions` and `<prefix>_audit`, with the same columns in SQLite and
// PostgreSQL; lists and objects are JSON text. Rows are checked when read back, as files are.

/** A version as a row. */
export type PromptRow = {
  id: string;
  version: number;
  text: string;
  required_vars: string;
  engine: string;
  metadata: string;
  created_by: string;
  created_at: string;
};

/** An audit entry as a row. */
export type PromptAuditRow = {
  id: string;
  version: number;
  action: string;
  by_whom: string;
  at: string;
  sha256: string;
  previous_version: number | null;
  previous_sha256: string | null;
  changed: string;
};

/** The columns of a version row, in insert order. */
export const VERSION_COLUMNS = [
  'id',
  'version',
  'text',
  'required_vars',
  'engine',
  'metadata',
  'created_by',
  'created_at',
] as const;

/** The columns of an audit row, in insert order. */
export const AUDIT_COLUMNS = [
  'id',
  'version',
  'action',
  'by_whom',
  'at',
  'sha256',
  'previous_version',
  'previous_sha256',
  'changed',
] as const;

/** A table prefix: lowercase letters, digits and `_`. */
export function checkTablePrefix(prefix: string): string {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) {
    throw new AgencyError(
      'invalid_argument',
      `table: ${JSON.stringify(prefix)} is not a table prefix; use lowercase letters, digits and "_" (at most 41)`,
      { details: { field: 'table' } },
    );
  }
  return prefix;
}

/** The row of a version. */
export function toRow(template: PromptTemplate): unknown[] {
  return [
    template.id,
    template.version,
    template.text,
    JSON.stringify(template.requiredVars),
    template.engine,
    JSON.stringify(template.metadata),
    template.createdBy,
    template.createdAt,
  ];
}

/** The row of an audit entry. */
export function toAuditRow(entry: PromptAuditEntry): unknown[] {
  return [
    entry.id,
    entry.version,
    entry.action,
    entry.by,
    entry.at,
    entry.sha256,
    entry.previous?.version ?? null,
    entry.previous?.sha256 ?? null,
    JSON.stringify(entry.changed),
  ];
}

/**
 * A version read back from a row, checked as `put` checks a draft.
 * @throws AgencyError `prompt_invalid` naming the table, the row (`id@version`) and the column at fault.
 */
export function fromRow(table: string, row: PromptRow): PromptTemplate {
  const where = `${table} row ${row.id}@${row.version}`;
  const json = (column: 'required_vars' | 'metadata'): unknown => {
    try {
      return JSON.parse(row[column]);
    } catch {
      throw rowError(where, column, 'is not JSON');
    }
  };
  const template = {
    id: row.id,
    version: Number(row.version),
    text: row.text,
    requiredVars: json('required_vars'),
    engine: row.engine,
    metadata: json('metadata'),
    createdBy: row.created_by,
    createdAt: row.created_at,
  } as PromptTemplate;
  const [problem] = storedTemplateProblems(template);
  if (problem) {
    const field = /^(\w+)/.exec(problem)?.[1] ?? '';
    throw rowError(where, COLUMN_OF[field] ?? field, problem);
  }
  return template;
}

/** An audit entry read back from a row. */
export function fromAuditRow(table: string, row: PromptAuditRow): PromptAuditEntry {
  let changed: unknown;
  try {
    changed = JSON.parse(row.changed);
  } catch {
    changed = undefined;
  }
  if (!Array.isArray(changed) || row.action !== 'put') {
    throw rowError(`${table} row ${row.id}@${row.version}`, 'changed', 'is not an audit entry');
  }
  return {
    id: row.id,
    version: Number(row.version),
    action: 'put',
    by: row.by_whom,
    at: row.at,
    sha256: row.sha256,
    previous:
      row.previous_version === null
        ? null
        : { version: Number(row.previous_version), sha256: row.previous_sha256 ?? '' },
    changed: changed as PromptAuditEntry['changed'],
  };
}

const COLUMN_OF: Record<string, string> = {
  requiredVars: 'required_vars',
  createdBy: 'created_by',
  createdAt: 'created_at',
};

function rowError(where: string, column: string, problem: string): AgencyError {
  return new AgencyError(
    'prompt_invalid',
    `${where}, column ${column}: ${problem}. A version is never edited: restore the row, or delete it and put the change as a new version`,
    { details: { row: where, column } },
  );
}
