import path from 'node:path';
import { AgencyError } from '../../../core/errors.ts';
import { isTempFileName } from '../../../core/temp-files.ts';
import { type ApprovalRequest, approvalRequestSchema } from '../../contracts/approvals.ts';
import type { TaskFiles } from '../../fs/task-files.ts';

// Ids become file names, so only plain id characters are allowed: no separators, no dots, no traversal.
const SAFE_ID = /^req_[0-9A-Za-z_-]{1,200}$/;

/** Throws `invalid_argument` unless `id` is a request id that is safe to use as a file name. */
export function assertRequestId(id: string): void {
  if (!SAFE_ID.test(id)) {
    throw new AgencyError('invalid_argument', `"${id}" is not an approval request id (req_ followed by [0-9A-Za-z_-])`);
  }
}

/** Where the files of one request live. */
export type RequestFiles = {
  id: string;
  request: string;
  decision: string;
  shownRequest: string;
  shownDecision: string;
};

/** The request and decision paths of `id`, and how to show them: relative to the task root, with `/`. */
export function requestFiles(progressDir: string, id: string): RequestFiles {
  assertRequestId(id);
  const shown = (kind: string) => [path.basename(progressDir), 'approvals', kind, `${id}.json`].join('/');
  return {
    id,
    request: path.join(progressDir, 'approvals', 'requests', `${id}.json`),
    decision: path.join(progressDir, 'approvals', 'decisions', `${id}.json`),
    shownRequest: shown('requests'),
    shownDecision: shown('decisions'),
  };
}

/** The requests and decisions directories. */
export function approvalDirs(progressDir: string): { requests: string; decisions: string } {
  return {
    requests: path.join(progressDir, 'approvals', 'requests'),
    decisions: path.join(progressDir, 'approvals', 'decisions'),
  };
}

/**
 * Reads a request file. Undefined when it does not exist.
 * @throws AgencyError `approval_invalid` when the file exists but is not a valid request.
 */
export async function readRequest(
  io: TaskFiles,
  progressDir: string,
  id: string,
): Promise<ApprovalRequest | undefined> {
  const files = requestFiles(progressDir, id);
  const text = await io.readText(files.request);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new AgencyError('approval_invalid', `${files.shownRequest}: not valid JSON`, { cause });
  }
  const parsed = approvalRequestSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `"${issue.path.join('.')}" ${issue.message}`).join('; ');
    throw new AgencyError('approval_invalid', `${files.shownRequest}: not a valid approval request: ${issues}`);
  }
  if (parsed.data.id !== id) {
    throw new AgencyError('approval_invalid', `${files.shownRequest}: "id" is ${parsed.data.id}, not ${id}`);
  }
  return parsed.data;
}

/** The ids of every request file, oldest first (ids sort by creation time). */
export async function listRequestIds(io: TaskFiles, progressDir: string): Promise<string[]> {
  const entries = await io.list(approvalDirs(progressDir).requests);
  return entries
    .filter((entry) => entry.kind === 'file')
    .map((entry) => entry.name)
    .filter((name) => name.endsWith('.json') && !isTempFileName(name))
    .map((name) => name.slice(0, -'.json'.length))
    .filter((id) => SAFE_ID.test(id))
    .sort();
}

/** How request and decision files are written: two-space JSON and a final newline, easy to read and diff. */
export function formatJson(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
