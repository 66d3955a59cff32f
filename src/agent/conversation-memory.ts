import { z } from 'zod';
import { assistantMessage, type JsonValue, type Message, userMessage } from '../core/messages.ts';
import { createMemoryClient, type MemoryClient } from '../memory/clients.ts';
import { contentHash } from '../memory/entry-text.ts';
import { type HistoryPolicy, renderHistory } from '../memory/history-policy.ts';
import type { MemoryScope, MemoryStore } from '../memory/memory-store.ts';
import type { ModelInput } from './llm-agent-options.ts';
import { LLMAgent } from './llm-agent.ts';
import { type Agent, type AgentTask, taskThreadId, taskUserId } from './types.ts';

/** One finished exchange of a thread, from which user facts are extracted. */
export type Exchange = { input: string; output: string };

/** Options for {@link withConversationMemory}. */
export type ConversationMemoryOptions = {
  /** Any memory store: in-memory, SQLite, PostgreSQL. */
  store: MemoryStore;
  /** How much of a thread goes back into the prompt. @default { mode: 'lastN', n: 20 } */
  policy?: HistoryPolicy;
  /** Facts about the user in an exchange, e.g. {@link modelFactExtractor}; stored in `user:<id>`. @default none */
  extractFacts?: (exchange: Exchange) => Promise<string[]>;
  /** How many user facts, most relevant to the input first, are recalled per turn. @default 5 */
  factsTopK?: number;
  /** The clock of the thread's entries. @default Date.now */
  now?: () => number;
};

/** The heading of the message that carries recalled user facts. */
export const USER_FACTS_HEADING = 'What you know about the user:';

/**
 * An agent that remembers: before each execution it loads the task's thread (`context.threadId`) under the history
 * policy and the user's facts most relevant to the input (`context.userId`); after an execution that ends with an
 * answer, it saves the input and the answer to the thread and stores the facts `extractFacts` finds in the user's
 * channel. A thread lives in `user:<userId>` (or `agent:<agent name>` without a user), as the stream
 * `thread:<threadId>`. Without a thread id, only facts are recalled and stored.
 *
 * @example
 * const agent = withConversationMemory(new LLMAgent({ name: 'helper', model }), {
 *   store: openSqliteMemoryStore({ path: './memory.db' }),
 *   extractFacts: modelFactExtractor(model),
 * });
 * await agent.execute({ input: 'I live in Lisbon.', context: { threadId: 't1', userId: 'u1' } });
 */
export function withConversationMemory(agent: Agent, options: ConversationMemoryOptions): Agent {
  const resolved: Resolved = { policy: { mode: 'lastN', n: 20 }, factsTopK: 5, now: Date.now, ...options };
  // One clock for every turn, strictly increasing, so a thread reads back in order even within one millisecond.
  let last = 0;
  const memory: Resolved = { ...resolved, now: () => (last = Math.max(resolved.now(), last + 1)) };
  return {
    name: agent.name,
    description: agent.description,
    async execute(task, executeOptions = {}) {
      const thread = threadOf(agent, task, memory);
      const history = [...(await recall(task, thread, memory)), ...(executeOptions.history ?? [])];
      const result = await agent.execute(task, { ...executeOptions, history });
      if (result.finishReason === 'stop') await remember(task, result.output, thread, memory);
      return result;
    },
  };
}

type Resolved = Required<Omit<ConversationMemoryOptions, 'extractFacts'>> &
  Pick<ConversationMemoryOptions, 'extractFacts'>;
type Thread = { stream: string | undefined; user: MemoryScope | undefined; client: MemoryClient };

function threadOf(agent: Agent, task: AgentTask, { store, now }: Resolved): Thread {
  const threadId = taskThreadId(task);
  const userId = taskUserId(task);
  const scope: MemoryScope = userId === undefined ? { kind: 'agent', id: agent.name } : { kind: 'user', id: userId };
  return {
    stream: threadId === undefined ? undefined : `thread:${threadId}`,
    user: userId === undefined ? undefined : scope,
    client: createMemoryClient({ store, scope, now }),
  };
}

// The user's facts most relevant to the input, then the thread under the history policy.
async function recall(task: AgentTask, thread: Thread, { store, policy, factsTopK }: Resolved): Promise<Message[]> {
  const earlier =
    thread.stream === undefined
      ? []
      : (await thread.client.read(thread.stream, { limit: 1000 })).map((entry) => entry.metadata.message as Message);
  const facts =
    thread.user === undefined
      ? []
      : await store.query([thread.user], { text: task.input, kinds: ['fact'], tags: ['user-fact'], topK: factsTopK });
  const lines = facts.map((fact) => `- ${fact.text}`).join('\n');
  return [
    ...(facts.length === 0 ? [] : [userMessage(`${USER_FACTS_HEADING}\n${lines}`)]),
    ...renderHistory({ seed: [], session: earlier, policy }),
  ];
}

async function remember(task: AgentTask, output: string, thread: Thread, memory: Resolved): Promise<void> {
  if (thread.stream !== undefined) {
    for (const message of [userMessage(task.input), assistantMessage(output)]) {
      const metadata = { message: message as unknown as JsonValue };
      await thread.client.append(thread.stream, { kind: 'message', text: textFor(message), metadata });
    }
  }
  if (thread.user === undefined || memory.extractFacts === undefined) return;
  for (const fact of await memory.extractFacts({ input: task.input, output })) {
    await memory.store.put(thread.user, {
      kind: 'fact',
      key: `user-fact:${contentHash(fact)}`,
      text: fact,
      tags: ['user-fact'],
      metadata: { provenance: { source: 'conversation', ...(thread.stream ? { sources: [thread.stream] } : {}) } },
    });
  }
}

function textFor(message: Message): string {
  const text =
    typeof message.content === 'string'
      ? message.content
      : message.content.map((part) => ('text' in part ? part.text : '')).join('');
  return text === '' ? ' ' : text;
}

const FACTS_INSTRUCTIONS =
  'From the exchange below, list durable facts about the user (who they are, what they prefer, what they work on) ' +
  'as short sentences in the third person. Leave out anything about this one request. List none when there are none.';

/**
 * Extracts user facts with one model call (a structured answer `{ facts: string[] }`). A call that fails yields no
 * facts rather than failing the turn.
 */
export function modelFactExtractor(model: ModelInput): (exchange: Exchange) => Promise<string[]> {
  const extractor = new LLMAgent({
    name: 'fact-extractor',
    model,
    instructions: FACTS_INSTRUCTIONS,
    schema: z.object({ facts: z.array(z.string().min(1).max(500)).max(20) }),
    maxIterations: 1,
  });
  return async ({ input, output }) => {
    const result = await extractor.execute({ input: `User: ${input}\nAssistant: ${output}` });
    if (result.finishReason !== 'stop' || result.object === undefined) return [];
    return result.object.facts.map((fact) => fact.trim()).filter((fact) => fact !== '');
  };
}
