import { join } from 'node:path';
import type { PlanVersion, TaskDetail, TaskResult } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import type { Usage } from '../core/usage.ts';
import { createFileBroker } from '../task/approvals/file-broker.ts';
import { listRequestIds } from '../task/approvals/internal/approval-files.ts';
import { usageFromJson, usageToJson } from '../task/budgets.ts';
import type { PlanChanges } from '../task/contracts/approvals.ts';
import type { EventFrame } from '../task/contracts/events.ts';
import { planSchema } from '../task/contracts/plan.ts';
import { type VerifyReport, verifyReportSchema } from '../task/contracts/verify-report.ts';
import { listDeliverables } from '../task/deliverables.ts';
import { readJournal } from '../task/journal/read-journal.ts';
import { loopSignatureOf } from '../task/loop-signature.ts';
import { type DoTaskResult, type ResultView, stepReports, viewOf } from '../task/result.ts';
import { parseContractFile } from '../task/task-spec.ts';
import { currentPlanSig } from './approval-inbox.ts';
import { type LiveView, summaryOf, type TaskRecord } from './task-records.ts';
import { workflowRefusal } from './workflow-records.ts';

/** The frames of a task's journal; none before its run started. */
export async function framesOf(record: TaskRecord): Promise<EventFrame[]> {
  try {
    return (await readJournal(record.paths.events)).frames;
  } catch (error) {
    if (AgencyError.hasCode(error, 'path_not_found')) return [];
    throw error;
  }
}

/** Everything the task page shows, read from the folder: the journal is the source of plans and the last seq. */
export async function detailOf(record: TaskRecord, live: LiveView): Promise<TaskDetail> {
  const [summary, frames, brief, taskFiles] = await Promise.all([
    summaryOf(record, live),
    framesOf(record),
    record.files.readText(record.paths.brief),
    record.files.list(record.paths.task),
  ]);
  const finished = summary.finish_reason !== null && !live.live && !live.queued;
  return {
    ...summary,
    brief: brief ?? '',
    spec: record.spec ?? record.workflow?.spec ?? null,
    plans: plansOf(frames, record.state?.approved_plan_sig ?? null),
    verify: await verifyReportsOf(record),
    approvals: await approvalsOf(record),
    deliverables: finished ? (await listDeliverables(record.paths)).deliverables : [],
    last_seq: frames.at(-1)?.seq ?? 0,
    files: taskFiles
      .filter((entry) => entry.kind === 'file')
      .map((entry) => entry.name)
      .sort(),
  };
}

/** Every plan version, from the journal's `plan.proposed` frames, each with what it changed and whether it was approved. */
export function plansOf(frames: readonly EventFrame[], approvedSig: string | null): PlanVersion[] {
  const approved = new Set<string>(approvedSig ? [approvedSig] : []);
  for (const frame of frames) {
    if (
      frame.type === 'approval.decided' &&
      frame.data?.decision === 'approved' &&
      typeof frame.data.plan_sig === 'string'
    )
      approved.add(frame.data.plan_sig);
  }
  const plans: PlanVersion[] = [];
  for (const frame of frames) {
    if (frame.type !== 'plan.proposed' || !frame.data) continue;
    const parsed = planSchema.safeParse(frame.data.plan);
    if (!parsed.success) continue;
    const signature = String(frame.data.plan_sig);
    plans.push({
      version: Number(frame.data.version),
      signature,
      plan: parsed.data,
      origin: typeof frame.data.origin === 'string' ? frame.data.origin : null,
      changes: (frame.data.changes as PlanChanges | undefined) ?? null,
      approved: approved.has(signature),
    });
  }
  return plans;
}

async function verifyReportsOf(record: TaskRecord): Promise<VerifyReport[]> {
  const entries = await record.files.list(record.paths.verifyDir);
  const reports: VerifyReport[] = [];
  for (const entry of entries.filter((item) => item.kind === 'file' && /^\d{4}-report\.json$/.test(item.name)).sort()) {
    const file = join(record.paths.verifyDir, entry.name);
    const text = await record.files.readText(file).catch(() => undefined);
    if (text === undefined) continue;
    try {
      reports.push(parseContractFile(file, text, verifyReportSchema));
    } catch {
      // A report that does not parse is not shown; the journal's verify frames still tell the outcome.
    }
  }
  return reports.sort((a, b) => a.attempt - b.attempt);
}

async function approvalsOf(record: TaskRecord): Promise<TaskDetail['approvals']> {
  const broker = createFileBroker(record.paths.progress, { mode: 'file' });
  const ids = await listRequestIds(record.files, record.paths.progress).catch((): string[] => []);
  const approvals: TaskDetail['approvals'] = [];
  const current = await currentPlanSig(record);
  for (const id of ids) {
    const entry = await broker.get(id).catch(() => undefined);
    if (!entry?.request) continue;
    const decision = entry.decision ?? null;
    approvals.push({
      request: entry.request,
      decision,
      state:
        decision !== null
          ? decision.decision === 'expired'
            ? 'expired'
            : 'decided'
          : entry.request.type === 'plan' && current !== undefined && current !== entry.request.plan_sig
            ? 'stale'
            : 'pending',
    });
  }
  return approvals.sort((a, b) => (a.request.created_at < b.request.created_at ? -1 : 1));
}

/**
 * The result of a finished run, rebuilt from its folder (seed 000's DoTaskResult): the journal's finish frame, the
 * state, the deliverables listed and hashed as the runner lists them, and step reports from the journal. It is the
 * same for a run started by this server and one started from the CLI.
 */
export async function resultOf(record: TaskRecord, view: ResultView, live: LiveView): Promise<TaskResult> {
  const { state, spec } = record;
  if (record.workflow) throw workflowRefusal(record.id, record.workflow, 'result');
  const frames = await framesOf(record);
  const finish = frames.findLast((frame) => frame.type === 'finish');
  // A run still closing here has no result yet, as its status is still `running` (see statusOf).
  if (!state || !spec || !finish || state.finish_reason === null || live.live) {
    throw new AgencyError('task_active', `Task ${record.id} has no result yet: it has not finished`, {
      details: { task_id: record.id },
    });
  }
  const error = frames.findLast((frame) => frame.type === 'error' && frame.seq < finish.seq)?.error;
  const full: DoTaskResult = {
    taskId: spec.task_id,
    loopName: state.loop.name,
    loopVersion: state.loop.version,
    loopSignature: loopSignatureOf(state.loop, spec),
    progressDir: record.paths.progress,
    finishReason: state.finish_reason,
    usage: usageFromJson(state.usage),
    outputText: typeof finish.data?.output === 'string' ? finish.data.output : '',
    deliverables: (await listDeliverables(record.paths)).deliverables,
    ...(typeof finish.data?.verified === 'boolean' ? { verified: finish.data.verified } : {}),
    planSig: state.approved_plan_sig ?? state.plan_sig,
    steps: stepReports(frames),
    warnings: frames.filter((frame) => frame.type === 'warning').map((frame) => frame.message ?? ''),
    ...(error ? { error: { code: error.code as never, message: error.message } } : {}),
    startedAt: state.started_at,
    completedAt: finish.ts,
  };
  return resultJson(viewOf(full, view));
}

/** A result in the API's snake_case. */
export function resultJson(result: DoTaskResult): TaskResult {
  const usage = (value: Usage) => usageToJson(value);
  return {
    task_id: result.taskId,
    loop_name: result.loopName,
    loop_version: result.loopVersion,
    loop_signature: result.loopSignature,
    progress_dir: result.progressDir,
    finish_reason: result.finishReason,
    usage: usage(result.usage),
    ...(result.outputText === undefined ? {} : { output_text: result.outputText }),
    ...(result.deliverables ? { deliverables: result.deliverables } : {}),
    ...(result.verified === undefined ? {} : { verified: result.verified }),
    ...(result.planSig === undefined ? {} : { plan_sig: result.planSig }),
    ...(result.steps
      ? {
          steps: result.steps.map((step) => ({
            id: step.id,
            name: step.name,
            kind: step.kind,
            status: step.status,
            ...(step.startedAt ? { started_at: step.startedAt } : {}),
            ...(step.endedAt ? { ended_at: step.endedAt } : {}),
            tools_used: step.toolsUsed,
            tool_calls: step.toolCalls,
            tools_blocked: step.toolsBlocked,
            ...(step.outputRef ? { output_ref: step.outputRef } : {}),
            usage: usage(step.usage),
          })),
        }
      : {}),
    ...(result.warnings ? { warnings: result.warnings } : {}),
    ...(result.error ? { error: result.error } : {}),
    started_at: result.startedAt,
    completed_at: result.completedAt,
  };
}
