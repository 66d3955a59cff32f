import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Tool as McpToolDescriptor } from '@modelcontextprotocol/sdk/types.js';
import { AgencyError, errorMessage } from '../core/errors.ts';

/** How to reach an MCP server: a command speaking MCP on stdio, or a Streamable HTTP endpoint. */
export type McpTransportOptions =
  | {
      type: 'stdio';
      /** The executable, e.g. `npx` or `process.execPath`. */
      command: string;
      args?: readonly string[];
      /**
       * Extra environment variables. The server also gets the SDK's safe defaults (`HOME`, `PATH`, `USER`, …), never
       * the rest of this process's environment.
       */
      env?: Readonly<Record<string, string>>;
      cwd?: string;
      /**
       * `pipe` keeps the last 8 KB of the server's stderr for `status().stderr` and connection errors.
       * @default 'pipe'
       */
      stderr?: 'pipe' | 'inherit' | 'ignore';
    }
  | {
      type: 'http';
      /** The Streamable HTTP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
      url: string | URL;
      /** Sent with every request, e.g. `{ authorization: 'Bearer …' }`. */
      headers?: Readonly<Record<string, string>>;
      /** @default globalThis.fetch */
      fetch?: typeof fetch;
    };

/** One live connection to a server: the SDK client and what is known about its process. */
export type McpSession = {
  readonly client: Client;
  readonly pid: number | undefined;
  /** The tail of the server's stderr, for stdio servers started with `stderr: 'pipe'`. */
  stderr(): string;
  close(): Promise<void>;
};

type SessionHooks = {
  server: string;
  clientInfo: { name: string; version: string };
  timeoutMs: number;
  /** The connection closed without `close()` being called: the process exited, or the transport failed. */
  onClose(): void;
  onToolsChanged(): void;
};

const STDERR_TAIL = 8 * 1024;
const CLOSE_DEADLINE_MS = 2_000;

/**
 * Starts the transport and runs the MCP handshake.
 * @throws AgencyError `mcp_unavailable` with the server's stderr tail when it cannot be reached or started.
 */
export async function openSession(options: McpTransportOptions, hooks: SessionHooks): Promise<McpSession> {
  const [{ Client }, { ToolListChangedNotificationSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const { transport, stderr, terminate } = await createTransport(options);
  const client = new Client(hooks.clientInfo, { capabilities: {} });
  let closing = false;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => hooks.onToolsChanged());
  client.onclose = () => {
    if (!closing) hooks.onClose();
  };
  const close = async () => {
    if (closing) return;
    closing = true;
    if (terminate) await withDeadline(terminate(), CLOSE_DEADLINE_MS);
    await client.close().catch(() => undefined);
  };
  try {
    await client.connect(transport, { timeout: hooks.timeoutMs });
  } catch (error) {
    await close();
    const tail = stderr().trim();
    throw new AgencyError(
      'mcp_unavailable',
      `Cannot connect to MCP server "${hooks.server}" (${describe(options)}): ${errorMessage(error)}` +
        (tail ? `\nIts stderr ends with:\n${tail}` : ''),
      { cause: error, details: { server: hooks.server } },
    );
  }
  const pid = 'pid' in transport && typeof transport.pid === 'number' ? transport.pid : undefined;
  return { client, pid, stderr, close };
}

async function createTransport(
  options: McpTransportOptions,
): Promise<{ transport: Transport; stderr: () => string; terminate?: () => Promise<void> }> {
  if (options.type === 'stdio') {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const mode = options.stderr ?? 'pipe';
    const transport = new StdioClientTransport({
      command: options.command,
      args: [...(options.args ?? [])],
      ...(options.env ? { env: { ...options.env } } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stderr: mode,
    });
    let tail = '';
    transport.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    return { transport, stderr: () => tail };
  }
  if (options.type === 'http') {
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const transport = new StreamableHTTPClientTransport(new URL(options.url), {
      ...(options.headers ? { requestInit: { headers: { ...options.headers } } } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    // Ending the session tells the server to free it; a server that is gone simply does not answer.
    return { transport, stderr: () => '', terminate: () => transport.terminateSession() };
  }
  throw new AgencyError(
    'invalid_argument',
    `MCP transport type ${JSON.stringify((options as { type?: unknown }).type)} is not supported: use "stdio" or "http"`,
    { details: { field: 'transport.type' } },
  );
}

/** A short description of where the server is, for messages. Never includes headers or environment values. */
export function describe(options: McpTransportOptions): string {
  if (options.type === 'stdio') return `command ${[options.command, ...(options.args ?? [])].join(' ')}`;
  const url = new URL(options.url);
  url.username = '';
  url.password = '';
  url.search = '';
  return `url ${url.href}`;
}

// Settles when `promise` does, or after `ms`, whichever comes first; never rejects.
async function withDeadline(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([promise.then(noop, noop), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function noop(): void {}

const MAX_PAGES = 100;

/** Lists every tool of the server, page by page; none when it does not offer tools. */
export async function listAllTools(client: Client, timeout: number): Promise<McpToolDescriptor[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const tools: McpToolDescriptor[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout });
    tools.push(...result.tools);
    cursor = result.nextCursor;
    if (cursor === undefined) break;
  }
  return tools;
}
