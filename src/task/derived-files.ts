import path from 'node:path';
import { errorMessage } from '../core/errors.ts';
import { approvalDecisionSchema, approvalRequestSchema } from './contracts/approvals.ts';
import type { EventFrame } from './contracts/events.ts';
import { planSchema, signPlan } from './contracts/plan.ts';
import { formatJson, requestFiles } from './approvals/internal/approval-files.ts';
import type { TaskFiles } from './fs/task-files.ts';
import type { TaskPaths } from './layout.ts';
import { stepOutputText } from './loop.ts';
import { verifyReportText } from './phases/verify.ts';
import { notesFiles } from './derived-notes.ts';
import { planText } from './progress-files.ts';

/**
 * When a file differs from what the journal says: `exact` files are rewritten on any difference; `valid` ones (a
 * person's decision, a plan a person may edit) only when missing or unreadable; `present` ones (notes a person or
 * the model may edit) only when missing or empty.
 */
type Strictness = 'exact' | 'valid' | 'present';

/** A file the runner derives from the journal: where it goes, what it holds, and how strictly that is checked. */
export type Derived = { file: string; text: string; strict: Strictness; valid?: (text: string) => boolean };

/**
 * Rebuilds the files the runner derives from the journal and does not fsync: `plan/NNNN.json` and
 * `plan/current.json` (from `plan.proposed`), approval requests (`approval.requested`) and decisions
 * (`approval.decided`), `steps/<id>/output.json` and verify reports (`phase.finish`), and the notes files. Returns a
 * warning for each file rewritten, or that could not be; a file a person may edit is rewritten only when it is
 * missing or unreadable (`plan/current.json` also when it holds an earlier version, which a lost rename leaves).
 */
export async function restoreDerivedFiles(
  files: TaskFiles,
  paths: TaskPaths,
  frames: readonly EventFrame[],
): Promise<string[]> {
  const warnings: string[] = [];
  for (const derived of derivedFiles(paths, frames)) {
    const shown = path.relative(paths.root, derived.file);
    try {
      const problem = problemOf(derived, await files.readText(derived.file).catch(() => null));
      if (problem === undefined) continue;
      await files.ensureDir(path.dirname(derived.file));
      await files.write(derived.file, derived.text);
      warnings.push(`${shown} ${problem}; rebuilt it from the journal`);
    } catch (error) {
      warnings.push(`${shown} could not be rebuilt from the journal: ${errorMessage(error)}`);
    }
  }
  return warnings;
}

function problemOf(derived: Derived, text: string | undefined | null): string | undefined {
  if (text === undefined) return 'was missing';
  if (text === null) return 'could not be read';
  if (text === derived.text) return undefined;
  if (derived.strict === 'exact') return 'did not match the journal';
  if (derived.strict === 'present') return text.trim() === '' ? 'was empty' : undefined;
  return derived.valid?.(text) === false ? 'was not valid' : undefined;
}

/** Every derived file the journal holds, in the order the run wrote them. */
function derivedFiles(paths: TaskPaths, frames: readonly EventFrame[]): Derived[] {
  const outputs = new Map<string, unknown>();
  for (const frame of frames) {
    if (frame.type === 'phase.finish' && frame.step && frame.data && 'output' in frame.data) {
      outputs.set(frame.step, frame.data.output);
    }
  }
  return [
    ...planFiles(paths, frames),
    ...approvalFiles(paths, frames),
    ...frames.flatMap((frame) => stepFiles(paths, frame, outputs)),
    ...notesFiles(paths, frames),
  ];
}

function planFiles(paths: TaskPaths, frames: readonly EventFrame[]): Derived[] {
  const plans = frames.flatMap((frame) => {
    const parsed = planSchema.safeParse(frame.type === 'plan.proposed' ? frame.data?.plan : undefined);
    return parsed.success ? [{ version: Number(frame.data?.version), plan: parsed.data }] : [];
  });
  const last = plans.at(-1);
  if (last === undefined) return [];
  const earlier = new Set(plans.slice(0, -1).map(({ plan }) => signPlan(plan)));
  // A valid plan that is not an earlier version is a person's edit, for Act's gate to find.
  const edited = (text: string) => {
    const parsed = planSchema.safeParse(parseJson(text));
    return parsed.success && !earlier.has(signPlan(parsed.data));
  };
  return [
    ...plans.map(
      ({ version, plan }) => ({ file: paths.plan(version), text: planText(plan), strict: 'exact' }) as const,
    ),
    { file: paths.planCurrent, text: planText(last.plan), strict: 'valid', valid: edited },
  ];
}

function approvalFiles(paths: TaskPaths, frames: readonly EventFrame[]): Derived[] {
  return frames.flatMap((frame): Derived[] => {
    if (frame.type === 'approval.requested') {
      const request = approvalRequestSchema.safeParse(frame.data?.request);
      if (!request.success) return [];
      const file = requestFiles(paths.progress, request.data.id).request;
      return [{ file, text: formatJson(request.data), strict: 'exact' }];
    }
    if (frame.type !== 'approval.decided') return [];
    const { id, decision, by, at, reason, plan_sig, args_digest } = frame.data ?? {};
    const binding = typeof plan_sig === 'string' ? { plan_sig } : { args_digest };
    const record = { id, decision, approved_by: by, timestamp: at, ...binding, ...(reason ? { reason } : {}) };
    const parsed = approvalDecisionSchema.safeParse(record);
    if (!parsed.success) return [];
    const file = requestFiles(paths.progress, parsed.data.id).decision;
    const valid = (text: string) => approvalDecisionSchema.safeParse(parseJson(text)).success;
    return [{ file, text: formatJson(parsed.data), strict: 'valid', valid }];
  });
}

function stepFiles(paths: TaskPaths, frame: EventFrame, outputs: Map<string, unknown>): Derived[] {
  const data = frame.data ?? {};
  if (frame.type === 'phase.finish' && typeof data.output_ref === 'string' && 'output' in data) {
    return [{ file: path.join(paths.root, data.output_ref), text: stepOutputText(data.output), strict: 'exact' }];
  }
  const report = frame.step === undefined ? undefined : outputs.get(frame.step);
  if ((frame.type === 'verify.pass' || frame.type === 'verify.fail') && typeof data.report === 'string' && report) {
    return [{ file: path.join(paths.root, data.report), text: verifyReportText(report), strict: 'exact' }];
  }
  return [];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
