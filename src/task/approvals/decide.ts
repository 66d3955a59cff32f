import { AgencyError } from '../../core/errors.ts';
import type { ApprovalDecision } from '../contracts/approvals.ts';
import { type DurableFs, nodeDurableFs } from '../fs/durable-fs.ts';
import { createTaskFiles } from '../fs/task-files.ts';
import { approvalDirs, formatJson, readRequest, requestFiles } from './internal/approval-files.ts';
import { lookAt } from './internal/await-decision.ts';
import { createFileExclusive } from './internal/write-file.ts';
import { bindingOf, checkDecision } from './validate-decision.ts';

/** Options for {@link decide}. */
export type DecideOptions = {
  /** Who decided: an email address, a user name, or `dashboard:<user>`. Must not be empty. */
  by: string;
  /** Why, in a sentence; kept in the decision file. */
  reason?: string;
  /** Milliseconds since the epoch, for the decision's timestamp. @default Date.now */
  now?: () => number;
  /** The file system, reached only below `progressDir` and never through a link. @default nodeDurableFs */
  fs?: DurableFs;
};

/**
 * Records a human decision on a request, the way `agency approve`, `agency deny` and the server do: it reads the
 * request, copies its `plan_sig` / `args_digest` into the decision (so the decision is bound to exactly what was
 * reviewed), and writes `approvals/decisions/<id>.json` atomically. Deciding the same way twice returns the decision
 * already on file. An invalid decision file (malformed or stale) is replaced.
 *
 * @throws AgencyError `approval_not_found` when no request has that id.
 * @throws AgencyError `approval_invalid` when `by` is empty, or a different valid decision is already on file (the
 * first decision stands; it is never overwritten).
 * @example
 * await decide('/runs/t1/progress', 'req_01J…', 'approved', { by: 'ana@example.com', reason: 'plan looks right' });
 */
export async function decide(
  progressDir: string,
  id: string,
  decision: 'approved' | 'denied',
  { by, reason, now = Date.now, fs = nodeDurableFs }: DecideOptions,
): Promise<ApprovalDecision> {
  const io = createTaskFiles(progressDir, { fs });
  const files = requestFiles(progressDir, id);
  const request = await readRequest(io, progressDir, id);
  if (request === undefined) {
    throw new AgencyError(
      'approval_not_found',
      `No approval request ${id}: ${files.shownRequest} does not exist (\`agency approvals <root>\` lists pending requests)`,
      { details: { file: files.shownRequest } },
    );
  }
  if (by.trim() === '') {
    throw new AgencyError('approval_invalid', `${files.shownDecision}: say who decides ("by" must not be empty)`);
  }
  const record: ApprovalDecision = {
    id,
    decision,
    approved_by: by,
    timestamp: new Date(now()).toISOString(),
    ...bindingOf(request),
    reason,
  };
  const check = checkDecision(record, id, request);
  if (!check.ok) throw new AgencyError('approval_invalid', `${files.shownDecision}: ${check.problem}`);

  await io.ensureDir(approvalDirs(progressDir).decisions);
  if (await createFileExclusive(io, files.decision, formatJson(check.decision), { durable: true })) {
    return check.decision;
  }
  const existing = await lookAt(io, files, request);
  if (existing.decision === undefined) {
    // The file on disk was never valid, so nothing acted on it: replace it with a correct one.
    await io.write(files.decision, formatJson(check.decision), { durable: true });
    return check.decision;
  }
  if (existing.decision.decision === decision) return existing.decision;
  const { decision: was, approved_by: wasBy, timestamp } = existing.decision;
  throw new AgencyError(
    'approval_invalid',
    `${files.shownDecision}: ${id} was already ${was} by ${wasBy} at ${timestamp}; a decision cannot be changed ` +
      (was === 'expired'
        ? '(the run has moved on; run the task again to get a new request)'
        : '(the first one stands)'),
    { details: { file: files.shownDecision, existing: was } },
  );
}
