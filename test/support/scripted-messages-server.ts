// A scripted Anthropic Messages API server for the real Claude Code CLI (ANTHROPIC_BASE_URL): each request is answered
// by a script that sees the latest human prompt and the tool results that followed it. Streaming answers use the real
// SSE wire format (anthropic/tool_use_response.txt: message_start, ping, content_block_start/delta/stop with
// text_delta and input_json_delta, message_delta with usage, message_stop); non-streaming requests get a message
// shaped like anthropic/anthropic-text.json. The CLI's side calls (the `HEAD /api/hello` connectivity check, token
// counting) get sensible answers.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** A tool result the CLI sent back, as the script sees it. */
export type SeenToolResult = { toolUseId: string; text: string; isError: boolean };

/** What the script decides for one request. */
export type ScriptedTurn =
  | { text: string }
  | { tool: string; input: Record<string, unknown>; text?: string }
  | { error: { status: number; type: string; message: string } };

/**
 * The context the script answers from: `turn` counts the assistant messages since `prompt`; `cwd` is the working
 * directory Claude Code tells the model about (its environment reminder), for tools that need absolute paths.
 */
export type ScriptContext = { prompt: string; turn: number; toolResults: SeenToolResult[]; model: string; cwd: string };

/** One request the server received; `apiKey` is its `x-api-key` header (or its bearer token). */
export type SeenRequest = { method: string; path: string; body: unknown; apiKey: string | undefined };

type Block = { type: string; text?: string; content?: unknown; tool_use_id?: string; is_error?: boolean };
type MessagesBody = {
  model: string;
  stream?: boolean;
  messages: Array<{ role: string; content: string | Block[] }>;
  tools?: unknown[];
};

const blocksOf = (content: string | Block[]): Block[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;
const isReminder = (text: string) => text.trimStart().startsWith('<system-reminder>');
const estimateTokens = (text: string) => Math.max(1, Math.ceil(Buffer.byteLength(text) / 4));

/** The latest human prompt in a conversation, the assistant turns since it, and the tool results sent after it. */
export function scriptContext(body: MessagesBody): ScriptContext {
  const texts = body.messages.flatMap((message) => blocksOf(message.content).map((block) => block.text ?? ''));
  const cwd = /Primary working directory: (\S+)/.exec(texts.join('\n'))?.[1] ?? '';
  let turn = 0;
  const toolResults: SeenToolResult[] = [];
  for (let i = body.messages.length - 1; i >= 0; i--) {
    const message = body.messages[i];
    if (message === undefined) continue;
    if (message.role === 'assistant') {
      turn++;
      continue;
    }
    const blocks = blocksOf(message.content);
    for (const block of blocks.filter((b) => b.type === 'tool_result').reverse()) {
      toolResults.unshift({
        toolUseId: block.tool_use_id ?? '',
        text: textOf(block.content),
        isError: !!block.is_error,
      });
    }
    const human = blocks.filter((b) => b.type === 'text' && b.text !== undefined && !isReminder(b.text));
    if (human.length > 0) {
      return { prompt: human.map((b) => b.text).join('\n'), turn, toolResults, model: body.model, cwd };
    }
  }
  return { prompt: '', turn, toolResults, model: body.model, cwd };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: { text?: string }) => part.text ?? '').join('');
  return '';
}

/** Starts the server on an ephemeral 127.0.0.1 port. `url` is the base for ANTHROPIC_BASE_URL (no `/v1`). */
export async function startScriptedMessagesServer(script: (context: ScriptContext) => ScriptedTurn) {
  const requests: SeenRequest[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '';
      const body: unknown = text ? JSON.parse(text) : undefined;
      requests.push({ method: request.method ?? '', path, body, apiKey: apiKeyOf(request) });
      route(request, response, path, body as MessagesBody, script);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** The conversation requests (`POST /v1/messages` with tools), in order. */
    conversation: () =>
      requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/messages?') && hasTools(r.body)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const apiKeyOf = (request: IncomingMessage) =>
  (request.headers['x-api-key'] as string | undefined) ?? request.headers.authorization?.replace(/^Bearer /, '');

const hasTools = (body: unknown) => Array.isArray((body as MessagesBody | undefined)?.tools);

function route(
  request: IncomingMessage,
  response: ServerResponse,
  path: string,
  body: MessagesBody,
  script: (context: ScriptContext) => ScriptedTurn,
): void {
  const pathname = path.split('?')[0];
  if (pathname === '/api/hello') return void response.writeHead(200).end();
  if (request.method === 'POST' && pathname === '/v1/messages/count_tokens') {
    return sendJson(response, 200, { input_tokens: estimateTokens(JSON.stringify(body)) });
  }
  if (request.method !== 'POST' || pathname !== '/v1/messages') {
    return sendJson(response, 404, { type: 'error', error: { type: 'not_found_error', message: `no ${path}` } });
  }
  // Side calls without tools (titles, summaries) get a short text; the conversation goes to the script.
  const turn: ScriptedTurn = hasTools(body) ? script(scriptContext(body)) : { text: 'Scripted task' };
  if ('error' in turn) {
    return sendJson(response, turn.error.status, {
      type: 'error',
      error: { type: turn.error.type, message: turn.error.message },
    });
  }
  // Ids unique across server restarts: a resumed session keeps the ids of its earlier turns.
  const id = randomBytes(12).toString('hex');
  const content = contentOf(turn, id);
  const usage = {
    input_tokens: estimateTokens(JSON.stringify(body.messages)),
    output_tokens: estimateTokens(JSON.stringify(content)),
  };
  const stopReason = 'tool' in turn ? 'tool_use' : 'end_turn';
  if (body.stream)
    return streamMessage(response, { id: `msg_scripted_${id}`, model: body.model, content, usage, stopReason });
  sendJson(response, 200, {
    id: `msg_scripted_${id}`,
    type: 'message',
    role: 'assistant',
    model: body.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage,
  });
}

type Content = Array<{ type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown }>;

function contentOf(turn: Exclude<ScriptedTurn, { error: unknown }>, id: string): Content {
  if (!('tool' in turn)) return [{ type: 'text', text: turn.text }];
  const toolUse = { type: 'tool_use' as const, id: `toolu_scripted_${id}`, name: turn.tool, input: turn.input };
  return turn.text === undefined ? [toolUse] : [{ type: 'text', text: turn.text }, toolUse];
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_scripted' });
  response.end(JSON.stringify(body));
}

type Streamed = {
  id: string;
  model: string;
  content: Content;
  usage: { input_tokens: number; output_tokens: number };
  stopReason: string;
};

function streamMessage(response: ServerResponse, { id, model, content, usage, stopReason }: Streamed): void {
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    'request-id': 'req_scripted',
  });
  const send = (type: string, data: Record<string, unknown>) =>
    response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  send('message_start', {
    message: {
      id,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 1,
      },
    },
  });
  send('ping', {});
  content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { index, delta: { type: 'text_delta', text: block.text } });
    } else {
      send('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
      });
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(0, half) } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json.slice(half) } });
    }
    send('content_block_stop', { index });
  });
  send('message_delta', {
    delta: { stop_reason: stopReason, stop_sequence: null },
    usage: { output_tokens: usage.output_tokens },
  });
  send('message_stop', {});
  response.end();
}
