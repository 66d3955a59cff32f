import { canonicalJson } from '../../core/canonical-json.ts';
import { AgencyError } from '../../core/errors.ts';
import { type ApprovalDecision, type ApprovalRequest, approvalRequestSchema } from '../contracts/approvals.ts';
import type { ApprovalBroker, InvalidDecision } from './broker.ts';
import { approvalDirs, formatJson, listRequestIds, readRequest, requestFiles } from './internal/approval-files.ts';
import { awaitDecision, invalidOf, lookAt } from './internal/await-decision.ts';
import { createFileExclusive } from './internal/write-file.ts';
import { conflictProblem, sameDecision } from './validate-decision.ts';
import { type DurableFs, nodeDurableFs } from '../fs/durable-fs.ts';
import { createTaskFiles } from '../fs/task-files.ts';

/** How approvals are decided: by a human writing decision files, or automatically (development only). */
export type ApprovalMode = 'file' | 'auto';

/** Options for {@link createFileBroker}. */
export type FileBrokerOptions = {
  /**
   * `file`: wait for a human (or the CLI, or the server) to write a decision file. `auto`: approve at once, still
   * writing both files, with `approved_by: "auto"`. Auto mode is for development and tests.
   */
  mode: ApprovalMode;
  /** Milliseconds since the epoch; decides expiry and stamps the decisions the broker writes. @default Date.now */
  now?: () => number;
  /** How often `await` re-reads the decision file besides watching it. @default 250 */
  pollMs?: number;
  /**
   * The file system under the broker's files, which it reaches only below `progressDir` and never through a link.
   * @default nodeDurableFs
   */
  fs?: DurableFs;
};

/** An {@link ApprovalBroker} over `progress/approvals/{requests,decisions}/<id>.json`. */
export type FileBroker = ApprovalBroker & {
  readonly progressDir: string;
  readonly mode: ApprovalMode;
};

/**
 * Creates the file broker of a run. `submit` writes `approvals/requests/<id>.json` atomically; `await` watches
 * `approvals/decisions/` (with polling as a fallback) and acts only on a valid decision file: well-formed, for this
 * id, with the request's `plan_sig` (plans) or `args_digest` (tools). Invalid files are reported through
 * `onInvalid` and the broker keeps waiting. At `expires_at` it resolves `expired` and records that in a decision
 * file signed `agency`. The files the broker writes itself are not fsynced: the runner journals each request before
 * submitting it (`approval.requested` holds the whole request) and each outcome once it has it, and rebuilds a lost
 * file from the journal. A person's decision (`decide`) is fsynced.
 *
 * @example
 * const broker = createFileBroker('/runs/t1/progress', { mode: 'file' });
 * await broker.submit(request);
 * const outcome = await broker.await(request.id, { signal, onInvalid: (bad) => log(`${bad.file}: ${bad.problem}`) });
 */
export function createFileBroker(
  progressDir: string,
  { mode, now = Date.now, pollMs = 250, fs = nodeDurableFs }: FileBrokerOptions,
): FileBroker {
  const acted = new Map<string, ApprovalDecision>();
  const io = createTaskFiles(progressDir, { fs });
  const ctx = { progressDir, mode, now, pollMs, files: io, acted };

  const get = async (id: string) => {
    const files = requestFiles(progressDir, id);
    const request = await readRequest(io, progressDir, id);
    const look = await lookAt(io, files, request);
    const first = acted.get(id);
    let invalid: InvalidDecision | undefined = invalidOf(files, id, look.problem);
    if (first !== undefined && look.decision !== undefined && !sameDecision(first, look.decision)) {
      invalid = invalidOf(files, id, conflictProblem(first));
    }
    const decision = first ?? look.decision;
    return {
      ...(request === undefined ? {} : { request }),
      ...(decision === undefined ? {} : { decision }),
      ...(invalid === undefined ? {} : { invalid }),
    };
  };

  return {
    progressDir,
    mode,

    async submit(request: ApprovalRequest): Promise<void> {
      const parsed = approvalRequestSchema.safeParse(request);
      if (!parsed.success) {
        const issues = parsed.error.issues.map((issue) => `"${issue.path.join('.')}" ${issue.message}`).join('; ');
        throw new AgencyError('invalid_argument', `Not a valid approval request: ${issues}`);
      }
      const files = requestFiles(progressDir, parsed.data.id);
      const dirs = approvalDirs(progressDir);
      await io.ensureDir(dirs.requests);
      await io.ensureDir(dirs.decisions);
      if (await createFileExclusive(io, files.request, formatJson(parsed.data), { durable: false })) return;
      const existing = await readRequest(io, progressDir, parsed.data.id);
      if (existing !== undefined && canonicalJson(existing) === canonicalJson(parsed.data)) return;
      throw new AgencyError(
        'invalid_argument',
        `${files.shownRequest}: a different request already has id ${parsed.data.id}; a new request needs a new id`,
        { details: { file: files.shownRequest } },
      );
    },

    async await(id, options) {
      const files = requestFiles(progressDir, id);
      const request = await readRequest(io, progressDir, id);
      if (request === undefined) {
        throw new AgencyError('approval_not_found', `${files.shownRequest} does not exist: submit the request first`, {
          details: { file: files.shownRequest },
        });
      }
      await io.ensureDir(approvalDirs(progressDir).decisions);
      return awaitDecision(ctx, request, options);
    },

    get,

    async pending(): Promise<ApprovalRequest[]> {
      const pending: ApprovalRequest[] = [];
      for (const id of await listRequestIds(io, progressDir)) {
        // A request file that cannot be read is not listed; `get(id)` reports what is wrong with it.
        const entry = await get(id).catch(() => undefined);
        if (entry?.request !== undefined && entry.decision === undefined) pending.push(entry.request);
      }
      return pending;
    },
  };
}
