import type { Suspended } from '../../agent/suspend.ts';
import type { Agent, AgentResult, AgentTask, ExecuteOptions } from '../../agent/types.ts';
import { sleep as sleepFor } from '../../core/clock.ts';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import type { JsonValue } from '../../core/messages.ts';
import { memoryRecorder, type RunEnd, type WorkflowRecorder } from './recorder.ts';
import { type DagOutcome, type DagState, emptyDagState, runDag } from './run-dag.ts';
import type { WorkflowOptions, WorkflowStep } from './types.ts';
import { validateWorkflow } from './validate-workflow.ts';
import { lastOutput, suspendedHandle, workflowResult } from './workflow-result.ts';

/** How one execution of a workflow is kept: in memory, or journaled on a task root. */
export type WorkflowExecution = {
  state: DagState;
  recorder: WorkflowRecorder;
  warnings?: string[];
  /** Continues the run after a suspension; by default in this process, with the same state. */
  resume?: (data: JsonValue | undefined, options: ExecuteOptions | undefined) => Promise<AgentResult>;
};

/**
 * A DAG of steps (agents, tools, functions) that is itself an Agent, so it nests in a network or another workflow.
 * Create one with {@link createWorkflow}; run it in memory with `execute`, or durably on a task root with
 * `runWorkflow` and `resumeWorkflow`.
 */
export class Workflow implements Agent {
  readonly name: string;
  readonly description: string;
  /** The steps, each after the steps it depends on. */
  readonly steps: readonly WorkflowStep[];
  private readonly options: WorkflowOptions;

  /** @throws AgencyError `invalid_argument` naming the step at fault: a cycle, an unknown dependency, a duplicate id. */
  constructor(options: WorkflowOptions) {
    this.steps = validateWorkflow(options);
    this.options = options;
    this.name = options.name;
    this.description = options.description ?? `A workflow of ${options.steps.length} steps`;
  }

  /** Runs the workflow in memory. Never rejects for a step's failure: that is in the result, naming the step. */
  execute(task: AgentTask, options: ExecuteOptions = {}): Promise<AgentResult> {
    return this.run(task, options, { state: emptyDagState(), recorder: memoryRecorder });
  }

  /** Runs the steps not yet finished in `execution.state`, recording them with its recorder. */
  async run(task: AgentTask, options: ExecuteOptions, execution: WorkflowExecution): Promise<AgentResult> {
    if (typeof task?.input !== 'string') {
      throw new AgencyError('invalid_argument', `workflow "${this.name}": the task's "input" must be a string`);
    }
    const {
      now = Date.now,
      random = Math.random,
      sleep = (ms: number, signal: AbortSignal) => sleepFor(ms, signal),
    } = this.options.deps ?? {};
    const startedAt = now();
    const emit = options.onEvent ?? (() => undefined);
    const { state, recorder } = execution;
    const dag = { workflow: this.name, input: task.input, recorder, emit, now, random, sleep };
    const outcome = await runDag(
      { ...dag, steps: this.steps, concurrency: this.options.concurrency ?? 4, signal: options.signal },
      state,
    );
    const { output, end } = this.answer(outcome, state);
    await recorder.ended(end);
    const resume =
      execution.resume ??
      ((data: JsonValue | undefined, next: ExecuteOptions | undefined) => {
        if (outcome.end.reason === 'suspended' && data !== undefined) state.answers.set(outcome.end.step, data);
        return this.run(task, { ...options, ...next }, execution);
      });
    const result = workflowResult(outcome, {
      id: options.runId ?? newId('run'),
      workflow: this.name,
      input: task.input,
      startedAt,
      finishedAt: now(),
      output,
      warnings: execution.warnings ?? [],
      suspended: outcome.end.reason === 'suspended' ? this.handle(outcome.end, state, resume, now) : undefined,
    });
    emit({ type: 'finish', result });
    return result;
  }

  // The answer of a completed run; an `output` function that throws fails the run like a step would.
  private answer(outcome: DagOutcome, state: DagState): { output: string; end: RunEnd } {
    if (outcome.end.reason !== 'completed') return { output: '', end: outcome.end };
    try {
      const output = this.options.output ? this.options.output({ ...state.outputs }) : lastOutput(this.steps, state);
      return { output, end: { reason: 'completed', output } };
    } catch (error) {
      const message = `Workflow "${this.name}": its output function threw: ${errorMessage(error)}`;
      outcome.end = { reason: 'error', error: { code: 'invalid_argument', message } };
      return { output: '', end: { reason: 'error', error: outcome.end.error } };
    }
  }

  private handle(
    end: { step: string; payload: JsonValue },
    state: DagState,
    resume: NonNullable<WorkflowExecution['resume']>,
    now: () => number,
  ): Suspended {
    return suspendedHandle({
      workflow: this.name,
      step: end.step,
      payload: end.payload,
      ttlMs: this.options.suspendTtlMs ?? 86_400_000,
      now,
      newId: () => newId('sus'),
      state: () => ({ step: end.step, outputs: state.outputs }),
      resume,
    });
  }
}

/**
 * Creates a workflow: a DAG of steps, each an agent, a tool or a function, with dependencies, conditions, retries
 * and suspension for human input. Steps whose dependencies are met run side by side, up to `concurrency`.
 * @throws AgencyError `invalid_argument` naming the step at fault: a cycle, an unknown dependency, a duplicate id.
 * @example
 * const wf = createWorkflow({
 *   name: 'triage',
 *   steps: [
 *     { id: 'fetch', tool: fetchTicket, args: ({ input }) => ({ id: input }) },
 *     { id: 'classify', agent: classifier, dependsOn: ['fetch'] },
 *     { id: 'approve', dependsOn: ['classify'], run: (c) => c.resumeData ?? c.suspend({ question: 'Refund?' }) },
 *   ],
 * });
 * const result = await wf.execute({ input: 'T-1001' }); // result.finishReason === 'suspended'
 * const done = await result.suspended!.resume({ refund: true });
 */
export function createWorkflow(options: WorkflowOptions): Workflow {
  return new Workflow(options);
}
