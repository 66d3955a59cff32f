// A local Anthropic Messages API server that answers the default governed loop's phases and accounts for prompt
// caching the way Anthropic documents it, so the real @ai-sdk/anthropic provider and agency's usage and cost can be
// tested over HTTP. Answers have the exact shape of the recorded fixtures (anthropic/anthropic-text.json for text,
// anthropic/ToolRunner.json for tool use), with this server's content and usage.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { fixtureText } from './fixture-fetch.ts';
import { FIXTURE_PLAN } from './governed-fixture.ts';

type Block = { type: string; text?: string; cache_control?: unknown; [key: string]: unknown };
type Request = {
  system?: Block[];
  messages: Array<{ role: string; content: Block[] }>;
  tools?: Array<{ name: string; cache_control?: unknown }>;
  tool_choice?: unknown;
  output_config?: { format?: unknown };
};

/** The usage fields the server reported for one request. */
export type CacheUsage = { input: number; cacheRead: number; cacheWrite: number; output: number };

/** Anthropic's minimum cacheable prompt for Sonnet models, in tokens. */
const MIN_CACHED_TOKENS = 1024;

const tokens = (text: string) => Math.ceil(Buffer.byteLength(text) / 4);
const hash = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Starts the server on an ephemeral 127.0.0.1 port. `bodies` holds each request; `usages` what was reported for it.
 * The cache works as Anthropic's: a prefix (tools, then system blocks, then message blocks, in that order) is
 * written at each block marked `cache_control` once it is at least 1024 tokens long, and a later request whose
 * prefix up to one of its marks is identical reads it. Tools, tool choice and the output format are part of every
 * prefix, since changing them invalidates the cache. Tokens are estimated at 4 bytes each.
 */
export async function startAnthropicPhaseServer() {
  const cached = new Set<string>();
  const bodies: Request[] = [];
  const usages: CacheUsage[] = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      const body = JSON.parse(text) as Request;
      bodies.push(body);
      const content = answer(body);
      const usage = { ...account(body, cached), output: tokens(JSON.stringify(content)) };
      usages.push(usage);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(message(content, usage, bodies.length)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    bodies,
    usages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// Splits a request into its prefix blocks, marks where cache_control sits, and reads or writes the cache.
function account(body: Request, cached: Set<string>): Omit<CacheUsage, 'output'> {
  const preamble = JSON.stringify([body.tools ?? [], body.tool_choice ?? null, body.output_config ?? null]);
  const blocks = [
    ...(body.system ?? []),
    ...body.messages.flatMap((message) => message.content.map((block) => ({ ...block, role: message.role }))),
  ];
  let prefix = preamble;
  const marks: Array<{ key: string; tokens: number }> = [];
  for (const block of blocks) {
    const { cache_control: mark, ...rest } = block;
    prefix += JSON.stringify(rest);
    if (mark !== undefined) marks.push({ key: hash(prefix), tokens: tokens(prefix) });
  }
  const total = tokens(prefix);
  const read = Math.max(0, ...marks.filter((mark) => cached.has(mark.key)).map((mark) => mark.tokens));
  const cacheable = marks.filter((mark) => mark.tokens >= MIN_CACHED_TOKENS);
  const longest = Math.max(0, ...cacheable.map((mark) => mark.tokens));
  for (const mark of cacheable) cached.add(mark.key);
  const write = longest > read ? longest - read : 0;
  return { input: total - read - write, cacheRead: read, cacheWrite: write };
}

// The phase is named by the ask ("Phase: PLAN"); the turn is how many tool results followed it.
function answer(body: Request): Block[] {
  let phase = 'other';
  let turn = 0;
  for (const message of [...body.messages].reverse()) {
    if (message.content.some((block) => block.type === 'tool_result')) turn++;
    const match = message.content.map((block) => /Phase: (\w+)/.exec(block.text ?? '')).find(Boolean);
    if (message.role === 'user' && match) {
      phase = (match[1] as string).toLowerCase();
      break;
    }
  }
  const structured = (value: unknown): Block[] =>
    body.tools?.some((tool) => tool.name === 'json')
      ? [{ type: 'tool_use', id: 'toolu_json', name: 'json', input: value }]
      : [{ type: 'text', text: JSON.stringify(value) }];
  const tool = (name: string, input: unknown): Block[] => [
    { type: 'tool_use', id: `toolu_${phase}_${turn}`, name, input },
  ];
  if (phase === 'gather')
    return turn === 0 ? tool('read_input', { name: 'input.txt' }) : [{ type: 'text', text: '- Agency runs agents.' }];
  if (phase === 'plan') return structured(FIXTURE_PLAN);
  if (phase === 'act')
    return turn === 0
      ? tool('write_artifact', { name: 'summary.md', text: 'Agency runs governed agents.\n' })
      : [{ type: 'text', text: 'Wrote artifacts/summary.md.' }];
  if (phase === 'verify') return structured({ criteria: [{ id: 'a1', passed: true, evidence: 'it exists' }] });
  return [{ type: 'text', text: 'Which phase is this?' }];
}

function message(content: Block[], usage: CacheUsage, index: number): unknown {
  const toolUse = content.some((block) => block.type === 'tool_use');
  const shape = JSON.parse(fixtureText('anthropic/anthropic-text.json')) as Record<string, unknown>;
  return {
    ...shape,
    id: `msg_local_${index}`,
    content,
    stop_reason: toolUse ? 'tool_use' : 'end_turn',
    usage: {
      input_tokens: usage.input,
      cache_creation_input_tokens: usage.cacheWrite,
      cache_read_input_tokens: usage.cacheRead,
      cache_creation: { ephemeral_5m_input_tokens: usage.cacheWrite, ephemeral_1h_input_tokens: 0 },
      output_tokens: usage.output,
      service_tier: 'standard',
      inference_geo: 'not_available',
    },
  };
}
