import { z } from 'zod';
import { LLMAgent } from '../agent/llm-agent.ts';
import { AgencyError } from '../core/errors.ts';
import type { Message } from '../core/messages.ts';
import type { Redactor } from '../core/redact.ts';
import { historyPolicyFromSpec, renderHistory } from '../memory/history-policy.ts';
import { builtinPromptSet } from '../prompts/builtin-prompts.ts';
import type { PromptSet } from '../prompts/prompt-set.ts';
import { personaOf } from './run-prompts.ts';
import { loadTaskHistory } from './task-history.ts';
import type { MemoryManager } from '../memory/memory-manager.ts';
import { toMessage } from '../memory/message-schema.ts';
import { resolveModelOrReplay } from '../model/cassette/resolve-or-replay.ts';
import { dearestPrice } from '../model/chain-prices.ts';
import { defineTool, type Tool } from '../tools/define-tool.ts';
import { createToolRegistry } from '../tools/tool-registry.ts';
import type { Policy } from '../policy/create-policy.ts';
import { governedPolicy, REPLAN_TOOL, runPolicyFor } from './governed-policy.ts';
import { memoryWriteCheck } from './memory-policy.ts';
import { createPhaseContext, type ReplanRequest } from './loop.ts';
import type { RunnerOptions } from './runner-options.ts';
import type { Session } from './session.ts';
import { createPhasePrompts } from './task-context.ts';
import { createToolGate, durableFirst, type StepGate } from './tool-gate.ts';

/**
 * The agent and loop context a run executes with: its tools (capped by the per-tool budget, plus `request_replan`),
 * the tool gate, the policy, memory and seeded history.
 */
export function buildPhaseContext(
  session: Session,
  entry: { brief: string; memory: MemoryManager | undefined },
  options: RunnerOptions,
  prompts: PromptSet,
  stepLimit: number | undefined,
  onStepDone: (id: string) => void,
) {
  let replan: ReplanRequest | undefined;
  let gate: StepGate | undefined;
  // Calls journaled by the gate whose tool has not flushed the journal yet (see durableFirst).
  const unflushed = new Set<string>();
  const tools = runTools(session, options, unflushed, (request) => (replan = request));
  const model = modelOf(session, options);
  const memory = entry.memory;
  const history = historyFor(session);
  const maxOutputTokens = options.maxOutputTokens ?? 2048;
  const gateProcessors = createToolGate(session, tools, () => gate, unflushed);
  const policy = policyOf(session, options);
  // The agent gets no system prompt or memory of its own: each phase's prompt, persona and pinned memory included,
  // comes whole from the one assembler (createPhasePrompts).
  const agent = new LLMAgent({
    name: 'governed-task',
    model,
    // The run's clock and ids, so its agent's run ids, timestamps and retry waits are the runner's to fix.
    deps: { ...options.deps, now: session.now, newId: session.newId },
    tools: tools.list(),
    processors: [
      gateProcessors.checks,
      governedPolicy(session, policy, tools, () => gate),
      ...(options.processors ?? []),
      gateProcessors.journal,
    ],
    maxOutputTokens,
    maxIterations: 12,
    planExecution: options.planExecution ?? false,
    // A rate limit's retry-after is waited for only while the run's wall-clock budget lasts.
    modelPolicy: { timeLeftMs: () => session.budgets.remaining().wall_clock_ms ?? undefined },
    catalog: options.catalog,
    prompts,
  });
  const persona = personaOf(prompts, options);
  const phasePrompts = createPhasePrompts({
    paths: session.paths,
    files: session.files,
    brief: entry.brief,
    persona: persona.text,
    history,
    memory,
  });
  const price = dearestPrice(model, options.catalog);
  return createPhaseContext({
    session,
    agent,
    setGate: (next) => {
      gate = next;
    },
    price,
    maxOutputTokens,
    goal: session.spec.goal,
    brief: entry.brief,
    tools,
    policy,
    contextFor: phasePrompts,
    prompts,
    promptRefs: persona.refs,
    takeReplanRequest: () => {
      const taken = replan;
      replan = undefined;
      return taken;
    },
    stepLimit,
    onStepDone,
  });
}

function modelOf(session: Session, options: RunnerOptions) {
  const model = options.model ?? session.spec.model;
  if (model === undefined || model === null) {
    throw new AgencyError(
      'invalid_config',
      'No model: pass `model` to createRunner or set "model" in the spec (e.g. "openai:gpt-4o")',
    );
  }
  // A spec string may be `replay:<cassette>`, which the agent's own resolution does not read.
  return typeof model === 'string' ? resolveModelOrReplay(model) : model;
}

// The run's tools, each capped by the per-tool budget and flushing the journal before it acts, plus the runner's own
// `request_replan`.
function runTools(
  session: Session,
  options: RunnerOptions,
  unflushed: Set<string>,
  onReplan: (request: ReplanRequest) => void,
) {
  const userTools = typeof options.tools === 'function' ? options.tools(session.paths) : (options.tools ?? []);
  const limit = session.spec.budgets.tool_timeout_ms;
  const capped =
    limit === null
      ? userTools
      : userTools.map((tool) => (tool.timeoutMs > limit ? { ...tool, timeoutMs: limit } : tool));
  const tools = [...capped, requestReplanTool(onReplan)];
  return createToolRegistry(tools.map((tool) => durableFirst(session, tool, unflushed)));
}

/**
 * The run's memory, every write of which goes through the run's policy (`{ kind: 'memory-write' }`), whether the
 * manager came ready-made or from a factory.
 */
export function memoryFor(session: Session, options: RunnerOptions, redactor: Redactor): MemoryManager | undefined {
  if (!options.memory) return undefined;
  const check = memoryWriteCheck(session, policyOf(session, options, redactor));
  if (typeof options.memory !== 'function') return options.memory.withWriteCheck(check);
  return options
    .memory({
      taskId: session.spec.task_id,
      userId: session.spec.user_id,
      redact: (text) => redactor.redactText(text),
      onEvent: (event) =>
        session.emit({
          type: event.type,
          message: `${event.count} ${event.count === 1 ? 'entry' : 'entries'} ${event.type === 'memory.read' ? 'from' : 'to'} ${event.scopes.join(', ') || 'no scope'}`,
          data: { scopes: event.scopes, count: event.count, ...(event.phase ? { phase: event.phase } : {}) },
        }),
    })
    .withWriteCheck(check);
}

// The operator's policy with the spec's approval rules: one engine for the run's plans, tool calls and memory.
function policyOf(session: Session, options: RunnerOptions, redactor = options.redactor): Policy {
  return runPolicyFor(session.spec, options.policy, { redactor, now: session.now });
}

/** The seeded history of a run: the TaskSpec's messages, then `task/history.jsonl|md`, under the spec's policy. */
function historyFor(session: Session) {
  let seed: Promise<Message[]> | undefined;
  const policy = historyPolicyFromSpec(session.spec.history);
  return async (_phase: string, taskContext: string): Promise<Message[]> => {
    seed ??= loadTaskHistory(session.paths.root).then((fromFiles) => [...specMessages(session), ...fromFiles]);
    return renderHistory({ seed: await seed, policy, taskContext });
  };
}

function specMessages(session: Session): Message[] {
  return session.spec.seed_messages.map((value, index) => {
    const parsed = toMessage(value);
    if ('problem' in parsed) {
      throw new AgencyError('state_corrupt', `${session.paths.spec}: "seed_messages.${index}" ${parsed.problem}`);
    }
    return parsed.message;
  });
}

/** The tool the model calls during Act to ask for tools the approved plan does not allow. */
function requestReplanTool(onRequest: (request: ReplanRequest) => void): Tool {
  return defineTool({
    name: REPLAN_TOOL,
    description:
      'Ask to add tools to the approved plan when the work needs a tool it does not allow. Acting stops; a new plan ' +
      'version is written and, if policy requires, approved before work continues.',
    input: z.object({ tools: z.array(z.string().min(1)).min(1), reason: z.string().min(1) }),
    effects: 'write',
    idempotent: true,
    execute: ({ tools, reason }) => {
      onRequest({ addTools: tools, reason });
      return `Re-planning requested to add ${tools.join(', ')}.`;
    },
  });
}

/**
 * The default system prompt of governed runs: the built-in `runner.persona` prompt. It never changes between steps,
 * so providers can cache it.
 */
export const DEFAULT_PERSONA = builtinPromptSet().render('runner.persona').text;
