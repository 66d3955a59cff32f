// A scripted OpenAI Responses API server for the real Codex CLI (a `model_provider` with `wire_api = "responses"`):
// each `POST /v1/responses` is answered by a script that sees the latest user prompt and the tool outputs that followed
// it. Answers stream in the real SSE wire format (openai-responses/test_openai_responses_stream.*.sse: `event:` and
// `data:` lines; response.created, response.output_item.added, output_text deltas or function_call arguments,
// response.output_item.done, response.completed with usage).
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';

/** What the script decides for one request: a final message, a function call (Codex's `exec_command`), or an error. */
export type ScriptedResponse =
  | { text: string }
  | { call: string; arguments: Record<string, unknown> }
  | { error: { status: number; code: string; message: string } };

/** What the script answers from: `turn` counts the tool outputs since `prompt`. */
export type ResponsesContext = { prompt: string; turn: number; outputs: string[]; model: string };

type InputItem = {
  type?: string;
  role?: string;
  content?: string | Array<{ type: string; text?: string }>;
  output?: unknown;
};
type ResponsesBody = { model: string; input: InputItem[]; stream?: boolean };

/** The latest user prompt of a Responses request (not Codex's `<environment_context>`) and the tool outputs after it. */
export function responsesContext(body: ResponsesBody): ResponsesContext {
  const outputs: string[] = [];
  for (let i = body.input.length - 1; i >= 0; i--) {
    const item = body.input[i];
    if (item === undefined) continue;
    if (item.type === 'function_call_output')
      outputs.unshift(typeof item.output === 'string' ? item.output : JSON.stringify(item.output));
    if (item.role !== 'user') continue;
    const text =
      typeof item.content === 'string' ? item.content : (item.content ?? []).map((part) => part.text ?? '').join('');
    if (text.trimStart().startsWith('<')) continue; // Codex's own context blocks
    return { prompt: text, turn: outputs.length, outputs, model: body.model };
  }
  return { prompt: '', turn: outputs.length, outputs, model: body.model };
}

/** Starts the server on an ephemeral 127.0.0.1 port. `url` ends in `/v1`, as a provider's `base_url`. */
export async function startScriptedResponsesServer(script: (context: ResponsesContext) => ScriptedResponse) {
  // `apiKey`: the request's bearer token.
  const requests: Array<{ method: string; path: string; body: unknown; apiKey: string | undefined }> = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const path = request.url ?? '';
      const body: unknown = text ? JSON.parse(text) : undefined;
      const apiKey = request.headers.authorization?.replace(/^Bearer /, '');
      requests.push({ method: request.method ?? '', path, body, apiKey });
      if (request.method !== 'POST' || path.split('?')[0] !== '/v1/responses') {
        return sendJson(response, 404, {
          error: { message: `no ${path}`, type: 'invalid_request_error', code: 'not_found' },
        });
      }
      const answer = script(responsesContext(body as ResponsesBody));
      if ('error' in answer) {
        return sendJson(response, answer.error.status, {
          error: { message: answer.error.message, type: answer.error.code, code: answer.error.code, param: null },
        });
      }
      streamResponse(response, (body as ResponsesBody).model, answer, text.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** The model requests (`POST /v1/responses`), in order. */
    turns: () => requests.filter((r) => r.method === 'POST' && r.path.startsWith('/v1/responses')),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function streamResponse(
  response: ServerResponse,
  model: string,
  answer: Exclude<ScriptedResponse, { error: unknown }>,
  requestBytes: number,
): void {
  const id = randomBytes(12).toString('hex');
  const base = { id: `resp_${id}`, object: 'response', created_at: Math.floor(Date.now() / 1000), model, error: null };
  const item =
    'call' in answer
      ? {
          type: 'function_call',
          id: `fc_${id}`,
          call_id: `call_${id}`,
          name: answer.call,
          arguments: JSON.stringify(answer.arguments),
          status: 'completed',
        }
      : {
          type: 'message',
          id: `msg_${id}`,
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: answer.text, annotations: [] }],
        };
  const output = Math.ceil(JSON.stringify(item).length / 4);
  const usage = {
    input_tokens: Math.ceil(requestBytes / 4),
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: Math.ceil(requestBytes / 4) + output,
  };
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const send = (data: Record<string, unknown>) =>
    response.write(`event: ${String(data['type'])}\ndata: ${JSON.stringify(data)}\n\n`);
  send({ type: 'response.created', response: { ...base, status: 'in_progress', output: [], usage: null } });
  send({ type: 'response.in_progress', response: { ...base, status: 'in_progress', output: [], usage: null } });
  if (item.type === 'function_call') {
    send({
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, arguments: '', status: 'in_progress' },
    });
    send({ type: 'response.function_call_arguments.delta', item_id: item.id, output_index: 0, delta: item.arguments });
    send({
      type: 'response.function_call_arguments.done',
      item_id: item.id,
      output_index: 0,
      arguments: item.arguments,
    });
  } else {
    const text = 'text' in answer ? answer.text : '';
    send({
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, status: 'in_progress', content: [] },
    });
    send({
      type: 'response.content_part.added',
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    });
    send({ type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: text });
    send({ type: 'response.output_text.done', item_id: item.id, output_index: 0, content_index: 0, text });
  }
  send({ type: 'response.output_item.done', output_index: 0, item });
  send({ type: 'response.completed', response: { ...base, status: 'completed', output: [item], usage } });
  response.end();
}
