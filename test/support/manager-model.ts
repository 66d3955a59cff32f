// A scripted manager for the local OpenAI-compatible model server: it plans to delegate the parts of a goal, lists
// the workers, delegates each part to the worker named, awaits them, delegates a failed or lost part again to
// `retryOn`, reads the results, and reports. Each answer is derived from the tool results in the request, as a
// model's would be, so a resumed run gets the answers its journal calls for.
import { type ChatMessage, type PhaseAnswers, textOf } from './openai-compatible-server.ts';

/** One part of the goal: its prompt for a worker, and the worker to send it to (else the manager picks one). */
export type Part = { prompt: string; worker?: string; workdir?: string };

/** A tool call the manager made in the act phase, with the text of its result. */
type Exchange = { name: string; args: Record<string, unknown>; result: string };

const TASK_ID = /task-[0-9a-z]{26}/;
const SETTLED_BADLY = /state\\?"\s*:\s*\\?"(failed|lost)/;

/** The manager's answers for a goal made of `parts`; `extra` tool calls are made once, after the first awaits. */
export function managerAnswers({
  parts,
  retryOn,
  extra = [],
}: {
  parts: Part[];
  retryOn?: string;
  extra?: Array<{ name: string; arguments: Record<string, unknown> }>;
}): PhaseAnswers {
  const tools = ['list_workers', 'delegate_task', 'await_task', 'task_result', 'inspect_workdir'];
  return (phase, _turn, messages) => {
    if (phase === 'gather') return `- The goal has ${parts.length} parts, one per worker.`;
    if (phase === 'plan')
      return JSON.stringify({
        goal: 'Have the workers do each part of the goal',
        steps: [{ id: 's1', title: 'Delegate each part, await it, check it', tools }],
        allowed_tools: tools,
        acceptance: [{ id: 'a1', criterion: 'Every part was done by a worker' }],
      });
    if (phase === 'verify') return JSON.stringify({ criteria: [{ id: 'a1', passed: true, evidence: 'awaited' }] });
    if (phase !== 'act') return 'unknown phase';
    return act(exchanges(messages), parts, retryOn, extra);
  };
}

function act(
  done: Exchange[],
  parts: Part[],
  retryOn: string | undefined,
  extra: Array<{ name: string; arguments: Record<string, unknown> }>,
) {
  if (done.length === 0) return [{ name: 'list_workers', arguments: {} }];
  const delegations = done.filter((exchange) => exchange.name === 'delegate_task');
  if (delegations.length === 0)
    return parts.map(({ prompt, worker, workdir }) => ({
      name: 'delegate_task',
      arguments: { prompt, ...(worker ? { worker } : {}), ...(workdir ? { workdir } : {}) },
    }));
  const awaited = done.filter((exchange) => exchange.name === 'await_task');
  const idOf = (exchange: Exchange) => TASK_ID.exec(exchange.result)?.[0];
  const pending = delegations.map(idOf).filter((id) => id && !awaited.some((a) => a.args['task_id'] === id));
  if (pending.length > 0)
    return pending.map((id) => ({ name: 'await_task', arguments: { task_id: id, timeout_seconds: 60 } }));
  // What a worker's output asked for, done as a model that obeyed it would.
  if (!extra.every((call) => done.some((exchange) => exchange.name === call.name && sameArgs(exchange, call))))
    return extra;
  const failed = awaited.filter((exchange) => SETTLED_BADLY.test(exchange.result));
  const retries = delegations.slice(parts.length);
  if (retryOn && failed.length > retries.length) {
    const again = failed.slice(retries.length).map((exchange) => {
      const first = delegations.find((delegation) => idOf(delegation) === exchange.args['task_id']);
      return { name: 'delegate_task', arguments: { prompt: first?.args['prompt'], worker: retryOn } };
    });
    return again;
  }
  const good = awaited.filter((exchange) => !SETTLED_BADLY.test(exchange.result));
  if (!done.some((exchange) => exchange.name === 'task_result'))
    return good.map((exchange) => ({ name: 'task_result', arguments: { task_id: exchange.args['task_id'] } }));
  const lines = delegations.map((delegation) => {
    const id = idOf(delegation);
    const state = awaited.find((a) => a.args['task_id'] === id)?.result.match(/state\\?"\s*:\s*\\?"(\w+)/)?.[1];
    return `- ${String(delegation.args['prompt'])} on ${String(delegation.args['worker'])}: ${state ?? 'unknown'}`;
  });
  return `Outcome: every part is done.\n${lines.join('\n')}`;
}

// The act phase's tool calls and their results: from the last "Phase: Act" prompt on.
function exchanges(messages: ChatMessage[]): Exchange[] {
  let start = 0;
  messages.forEach((message, index) => {
    if (message.role === 'user' && /Phase: Act/i.test(textOf(message))) start = index;
  });
  const calls = new Map<string, { name: string; args: Record<string, unknown> }>();
  const found: Exchange[] = [];
  for (const message of messages.slice(start)) {
    for (const call of message.tool_calls ?? [])
      calls.set(call.id, {
        name: call.function.name,
        args: JSON.parse(call.function.arguments) as Record<string, unknown>,
      });
    if (message.role === 'tool' && message.tool_call_id) {
      const call = calls.get(message.tool_call_id);
      if (call) found.push({ ...call, result: textOf(message) });
    }
  }
  return found;
}

function sameArgs(exchange: Exchange, call: { arguments: Record<string, unknown> }): boolean {
  return JSON.stringify(exchange.args) === JSON.stringify(call.arguments);
}
