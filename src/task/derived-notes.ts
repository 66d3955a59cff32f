import type { Message } from '../core/messages.ts';
import type { EventFrame } from './contracts/events.ts';
import { planSchema } from './contracts/plan.ts';
import type { Derived } from './derived-files.ts';
import type { TaskPaths } from './layout.ts';
import * as progress from './progress-files.ts';

type StepOutput = { findings?: unknown; sources?: unknown; toolCalls?: unknown; messages?: unknown };

/**
 * The notes files as the default loop writes them, from the journal: `findings.md` and `sources.jsonl` from the
 * gather steps' outputs, `todo.md` from the last plan, `notes.md` from the frames each of its lines reports. A person
 * or the model may edit these, so they are rebuilt only when missing or empty.
 */
export function notesFiles(paths: TaskPaths, frames: readonly EventFrame[]): Derived[] {
  const derived: Derived[] = [];
  const lines: string[] = [];
  let gathered: StepOutput = {};
  let plan: { plan: unknown; done: boolean } | undefined;
  let error: { code: string; message: string } | undefined;
  for (const frame of frames) {
    const data = frame.data ?? {};
    const output = (data.output ?? {}) as StepOutput;
    if (frame.type === 'phase.finish' && frame.step?.endsWith('-gather')) gathered = output;
    if (frame.type === 'phase.finish' && frame.step?.endsWith('-record-findings')) {
      derived.push(...findingsFiles(paths, frame.step, output, gathered));
      lines.push(progress.gatherNote(Number(gathered.toolCalls ?? 0), Number(output.sources ?? 0)));
    } else if (frame.type === 'plan.proposed') {
      plan = { plan: data.plan, done: false };
      lines.push(progress.planNote(Number(data.version), String(data.plan_sig), String(data.origin)));
    } else if (frame.type === 'verify.pass' || frame.type === 'verify.fail') {
      if (plan && frame.type === 'verify.pass') plan.done = true;
      const passed = frame.type === 'verify.pass';
      lines.push(progress.verifyNote(Number(data.attempt), passed, Number(data.passed), Number(data.total)));
    } else if (frame.type === 'error' && frame.error) {
      error = { code: frame.error.code, message: frame.message ?? frame.error.message };
    } else if (frame.type === 'finish') {
      lines.push(progress.finishNote(String(data.reason), error));
      error = undefined;
    }
  }
  const parsed = planSchema.safeParse(plan?.plan);
  if (parsed.success) derived.push(presentFile(paths.todo, progress.todoText(parsed.data, plan?.done === true)));
  const notes = `${progress.NOTES_HEADER}${lines.map((line) => `- ${line}\n`).join('')}`;
  if (lines.length > 0) derived.push(presentFile(paths.notes, notes));
  return derived;
}

function findingsFiles(paths: TaskPaths, step: string, output: StepOutput, gathered: StepOutput): Derived[] {
  const messages = Array.isArray(gathered.messages) ? (gathered.messages as Message[]) : [];
  const sources = progress.sourcesFromOutputs(step, progress.toolOutputsOf(messages));
  return [
    ...(typeof output.findings === 'string'
      ? [presentFile(paths.findings, progress.findingsText(output.findings))]
      : []),
    presentFile(paths.sources, progress.sourcesText([], sources)[0]),
  ];
}

function presentFile(file: string, text: string): Derived {
  return { file, text, strict: 'present' };
}
