import { join } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import { traceStep } from '../obs/agent-spans.ts';
import type { AgentResult } from '../agent/types.ts';
import type { JsonValue, Message } from '../core/messages.ts';
import type { PromptSet } from '../prompts/prompt-set.ts';
import type { Policy } from '../policy/create-policy.ts';
import type { ToolRegistry } from '../tools/tool-registry.ts';
import { type AgentStepHost, type AgentStepOptions, runAgentStep } from './agent-step.ts';
import type { StopReason } from './contracts/state.ts';
import type { TaskPaths } from './layout.ts';
import type { Session } from './session.ts';
import type { LoopContext } from './loop-context.ts';

export type { LoopContext } from './loop-context.ts';

/** How a loop ended. */
export type LoopOutcome = { reason: StopReason; output: string; verified?: boolean };

/** A governed loop: the default Gather → Plan → Act → Verify, seed 002's Plan → Act → Reflect, or your own. */
export type Loop = {
  name: string;
  version: string;
  run(context: LoopContext): Promise<LoopOutcome>;
};

/** What an agent step returns to the loop; also what is stored in `steps/<id>/output.json`. */
export type AgentStepOutput = {
  output: string;
  iterations: number;
  toolCalls: number;
  /** The step's conversation without the system prompt, for a later step to continue from. */
  messages: Message[];
  /** What the step's `capture` returned when it ended, stored with the output so a resumed loop sees it too. */
  captured?: Record<string, unknown>;
};

/** A request to add tools to the approved plan, made by the model during Act. */
export type ReplanRequest = { addTools: string[]; reason: string };

/**
 * The runner's side of a loop context: what the phase functions work with. Loops never see it; they get the
 * {@link LoopContext} built from it.
 */
export type PhaseContext = {
  readonly session: Session;
  readonly paths: TaskPaths;
  readonly goal: string;
  readonly brief: string;
  readonly tools: ToolRegistry;
  readonly policy: Policy;
  step<T extends JsonValue | object>(name: string, kind: string, work: (id: string) => Promise<T>): Promise<T>;
  agentStep(
    name: string,
    options: AgentStepOptions & { capture?: () => Record<string, unknown> },
  ): Promise<AgentStepOutput>;
  contextFor(phase: string): Promise<Message[]>;
  takeReplanRequest(): ReplanRequest | undefined;
  /** The prompt versions of the run, resolved when it was opened. */
  readonly prompts: PromptSet;
};

/** What {@link createPhaseContext} needs from the runner. */
export type LoopHost = AgentStepHost & {
  goal: string;
  brief: string;
  tools: ToolRegistry;
  policy: Policy;
  contextFor(phase: string): Promise<Message[]>;
  takeReplanRequest(): ReplanRequest | undefined;
  prompts: PromptSet;
  /** Pauses the run after this many more steps complete (for `stepOnce`); undefined runs to the end. */
  stepLimit?: number | undefined;
  onStepDone?(id: string): void;
};

/** Thrown by `step` when a `stepOnce` pause point is reached. */
export class StepPause extends Error {
  override readonly name = 'StepPause';
}

/** Builds the context a loop runs with. */
export function createPhaseContext(host: LoopHost): PhaseContext {
  const { session } = host;
  let counter = 0;
  let completedThisCall = 0;

  const step: PhaseContext['step'] = async (name, kind, work) => {
    counter++;
    const id = `${String(counter).padStart(4, '0')}-${name}`;
    const outputFile = join(session.paths.step(id), 'output.json');
    if (session.fold.finishedSteps.has(id)) return journaledOutput(session, id) as never;
    if (host.stepLimit !== undefined && completedThisCall >= host.stepLimit) throw new StepPause(`paused before ${id}`);
    await session.checkStop();
    if (!session.fold.startedSteps.has(id)) {
      session.fold.startedSteps.add(id);
      session.emit({
        type: 'phase.start',
        step: id,
        step_kind: kind,
        message: `${name} started`,
        data: { phase: name, elapsed_ms: Math.round(session.budgets.elapsedMs()) },
      });
    }
    // The start is made durable with the step's first commit: before a side effect, or at its end.
    session.update({ phase: name, last_step_id: id });
    await session.files.ensureDir(session.paths.step(id));
    // Outputs are redacted once, here: the journal holds this copy and resume returns it. The file is a copy for
    // people, derived from the journal, and not fsynced (see restoreDerivedFiles).
    const traced = { id, kind, taskId: session.spec.task_id };
    const output = session.redact(await traceStep(traced, () => work(id)));
    await session.files.write(outputFile, stepOutputText(output));
    session.fold.finishedSteps.add(id);
    session.fold.stepOutputs.set(id, output);
    session.stepDone(id);
    session.emit({
      type: 'phase.finish',
      step: id,
      step_kind: kind,
      message: `${name} finished`,
      data: {
        phase: name,
        output_ref: relativeToRoot(session.paths, outputFile),
        output,
        elapsed_ms: Math.round(session.budgets.elapsedMs()),
      },
    });
    await session.boundary({ last_step_id: id });
    completedThisCall++;
    host.onStepDone?.(id);
    return output;
  };

  return {
    session,
    paths: session.paths,
    goal: host.goal,
    brief: host.brief,
    tools: host.tools,
    policy: host.policy,
    prompts: host.prompts,
    step,
    agentStep: (name, options) =>
      step(name, 'agent', async (id): Promise<AgentStepOutput> => {
        const result: AgentResult = await runAgentStep(host, id, options);
        const captured = options.capture?.();
        return {
          output: result.output,
          iterations: result.iterations,
          toolCalls: result.calls.length,
          messages: result.messages.filter((message) => message.role !== 'system'),
          ...(captured ? { captured } : {}),
        };
      }),
    contextFor: host.contextFor,
    takeReplanRequest: host.takeReplanRequest,
  };
}

/** The text of `steps/<id>/output.json` for a step's output. */
export function stepOutputText(output: unknown): string {
  return JSON.stringify(output, null, 2);
}

/** A path under the task root, as written in files and events (`progress/…`). */
export function relativeToRoot(paths: TaskPaths, absolute: string): string {
  return absolute.startsWith(`${paths.root}/`) ? absolute.slice(paths.root.length + 1) : absolute;
}

// A finished step's output comes from the journal, the source of truth: `steps/<id>/output.json` is a copy for
// people to read, and an edit to it changes nothing.
function journaledOutput(session: Session, id: string): unknown {
  if (session.fold.stepOutputs.has(id)) return session.fold.stepOutputs.get(id);
  throw new AgencyError(
    'journal_corrupt',
    `${session.paths.events}: step ${id} finished but its phase.finish frame holds no output, so the run cannot ` +
      'continue from it. Start the task again in a new folder.',
    { details: { step: id } },
  );
}
