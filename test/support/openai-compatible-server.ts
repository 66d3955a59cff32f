// A local OpenAI-compatible Chat Completions server that answers the default governed loop's phases, the way a
// real model would, over real HTTP. It lets the CLI be tested end to end through @ai-sdk/openai-compatible.
import { createServer, type Server } from 'node:http';

/** A message of a Chat Completions request. */
export type ChatMessage = {
  role: string;
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};
type ToolCall = { name: string; arguments: Record<string, unknown> };

/** The text of a message. */
export function textOf(message: ChatMessage): string {
  if (typeof message.content === 'string') return message.content;
  return (message.content ?? []).map((part) => part.text ?? '').join('');
}

/** What the server answers: text, or tool calls, for the request's phase and turn within it (and its messages). */
export type PhaseAnswers = (
  phase: string,
  turn: number,
  messages: ChatMessage[],
  /** The names of the tools the request offers. */
  tools?: string[],
) => string | ToolCall[];

/** The default answers: read the input, plan one write, write it, verify it. */
export const summariseAnswers: PhaseAnswers = (phase, turn) => {
  if (phase === 'gather')
    return turn === 0
      ? [{ name: 'fs_read', arguments: { path: 'task/input.txt' } }]
      : '- The input says agency runs governed agents.';
  if (phase === 'plan') {
    return JSON.stringify({
      goal: 'Summarise the input',
      steps: [{ id: 's1', title: 'Write the summary', tools: ['fs_write'] }],
      allowed_tools: ['fs_write'],
      acceptance: [
        { id: 'a1', criterion: 'summary exists', check: { type: 'file_exists', path: 'artifacts/summary.md' } },
      ],
    });
  }
  if (phase === 'act')
    return turn === 0
      ? [
          {
            name: 'fs_write',
            arguments: { path: 'progress/artifacts/summary.md', content: 'Agency runs governed agents.\n' },
          },
        ]
      : 'Wrote progress/artifacts/summary.md.';
  if (phase === 'verify') return JSON.stringify({ criteria: [{ id: 'a1', passed: true, evidence: 'exists' }] });
  return 'unknown phase';
};

/**
 * Starts the server on an ephemeral 127.0.0.1 port; `requests` counts the completions served. `hold`, when it returns
 * a promise for a request, keeps that request waiting (a model call in flight) until the promise settles.
 */
export async function startOpenAICompatibleServer(
  answers: PhaseAnswers = summariseAnswers,
  { hold }: { hold?: (phase: string, turn: number, messages: ChatMessage[]) => Promise<void> | undefined } = {},
): Promise<{ server: Server; url: string; requests: () => number }> {
  let served = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => void respond());
    const respond = async () => {
      if (request.url !== '/v1/chat/completions') {
        response.writeHead(404).end();
        return;
      }
      served++;
      const { messages, tools = [] } = JSON.parse(body) as {
        messages: ChatMessage[];
        tools?: Array<{ function: { name: string } }>;
      };
      let phase = 'other';
      let turn = 0;
      for (let i = messages.length - 1; i >= 0; i--) {
        const message = messages[i] as ChatMessage;
        if (message.role === 'tool') turn++;
        const match = message.role === 'user' ? /Phase: (\w+)/.exec(textOf(message)) : null;
        if (match) {
          phase = (match[1] as string).toLowerCase();
          break;
        }
      }
      await hold?.(phase, turn, messages);
      const answer = answers(
        phase,
        turn,
        messages,
        tools.map((tool) => tool.function.name),
      );
      const message =
        typeof answer === 'string'
          ? { role: 'assistant', content: answer }
          : {
              role: 'assistant',
              content: null,
              tool_calls: answer.map((call, index) => ({
                id: `call_${served}_${index}`,
                type: 'function',
                function: { name: call.name, arguments: JSON.stringify(call.arguments) },
              })),
            };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${served}`,
          object: 'chat.completion',
          created: 1_700_000_000,
          model: 'local-model',
          choices: [{ index: 0, message, finish_reason: typeof answer === 'string' ? 'stop' : 'tool_calls' }],
          usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
        }),
      );
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return { server, url: `http://127.0.0.1:${address.port}/v1`, requests: () => served };
}
