import { readFileSync } from 'node:fs';
import { AgencyError } from '../core/errors.ts';
import { TOOL_EFFECTS, type ToolEffect } from '../tools/define-tool.ts';
import type { McpTransportOptions } from './client-session.ts';
import type { McpToolOverride } from './tool-catalog.ts';
import { checkServerName } from './tool-names.ts';

/** When and how often a lost connection is re-established in the background. */
export type McpReconnectPolicy = {
  /** Attempts after each loss before the connection stays `disconnected`. @default 5 */
  maxAttempts?: number;
  /** The delay before the first attempt; it doubles after each failure. @default 500 */
  initialDelayMs?: number;
  /** @default 30000 */
  maxDelayMs?: number;
};

/** A progress notification the server sent while one of its tools ran. */
export type McpProgressEvent = {
  server: string;
  /** The agency tool name, e.g. `everything__trigger-long-running-operation`. */
  tool: string;
  toolCallId: string;
  progress: number;
  total?: number;
  message?: string;
};

/** Options for `connectMcp`. */
export type ConnectMcpOptions = {
  /** Prefixes every tool name (`name__tool`): 1-32 letters, digits, `_` or `-`, without `__`. */
  name: string;
  transport: McpTransportOptions;
  /**
   * What the server's tools do to the world, for policy. MCP tool annotations are hints from the server and are
   * not trusted; set `read` here, or per tool in `overrides`, for servers you trust.
   * @default 'exec'
   */
  effects?: ToolEffect;
  /** How long one tool call may take. @default 60000 */
  timeoutMs?: number;
  /** Per-tool settings, keyed by the server's own tool name (e.g. `read_text_file`). */
  overrides?: Readonly<Record<string, McpToolOverride>>;
  /** How long the handshake and each `tools/list` may take. @default 30000 */
  connectTimeoutMs?: number;
  /** `false` leaves a lost connection `disconnected` until `reconnect()` is called. */
  reconnect?: McpReconnectPolicy | false;
  /** Called for each progress notification during a tool call. */
  onProgress?(event: McpProgressEvent): void;
  /** What this client tells the server it is. @default { name: 'agency', version: <agency's version> } */
  clientInfo?: { name: string; version: string };
};

/** The options with defaults filled in and every value checked. */
export type ResolvedConnectOptions = Required<Omit<ConnectMcpOptions, 'reconnect' | 'onProgress'>> & {
  reconnect: Required<McpReconnectPolicy> | false;
  onProgress: ConnectMcpOptions['onProgress'];
};

/**
 * Fills in defaults and checks every option.
 * @throws AgencyError `invalid_argument` naming the option and the fix.
 */
export function resolveConnectOptions(options: ConnectMcpOptions): ResolvedConnectOptions {
  const {
    name,
    transport,
    effects = 'exec',
    timeoutMs = 60_000,
    overrides = {},
    connectTimeoutMs = 30_000,
    reconnect = {},
    onProgress,
    clientInfo = { name: 'agency', version: agencyVersion() },
  } = options ?? ({} as ConnectMcpOptions);
  const invalid = (field: string, problem: string): never => {
    throw new AgencyError('invalid_argument', `MCP server "${String(name)}": "${field}" ${problem}`, {
      details: { field },
    });
  };
  checkServerName(name);
  checkTransport(transport, invalid);
  checkEffects(effects, 'effects', invalid);
  checkMs(timeoutMs, 'timeoutMs', invalid);
  checkMs(connectTimeoutMs, 'connectTimeoutMs', invalid);
  if (typeof overrides !== 'object' || overrides === null) invalid('overrides', 'must be an object keyed by tool name');
  for (const [tool, override] of Object.entries(overrides)) {
    if (override.effects !== undefined) checkEffects(override.effects, `overrides.${tool}.effects`, invalid);
    if (override.timeoutMs !== undefined) checkMs(override.timeoutMs, `overrides.${tool}.timeoutMs`, invalid);
  }
  const policy = reconnect === false ? false : resolveReconnect(reconnect, invalid);
  return {
    name,
    transport,
    effects,
    timeoutMs,
    overrides,
    connectTimeoutMs,
    reconnect: policy,
    onProgress,
    clientInfo,
  };
}

function checkTransport(transport: McpTransportOptions, invalid: (field: string, problem: string) => never): void {
  if (typeof transport !== 'object' || transport === null) {
    invalid('transport', 'must be { type: "stdio", command } or { type: "http", url }');
  }
  if (transport.type === 'stdio') {
    if (typeof transport.command !== 'string' || transport.command.trim() === '') {
      invalid('transport.command', 'must be the executable to start, e.g. "npx"');
    }
    return;
  }
  if (transport.type === 'http') {
    let url: URL | undefined;
    try {
      url = new URL(transport.url);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      invalid('transport.url', 'must be an http or https URL, e.g. "http://127.0.0.1:3000/mcp"');
    }
    return;
  }
  invalid('transport.type', 'must be "stdio" or "http"');
}

function checkEffects(value: unknown, field: string, invalid: (field: string, problem: string) => never): void {
  if (!TOOL_EFFECTS.includes(value as ToolEffect)) invalid(field, `must be one of ${TOOL_EFFECTS.join(', ')}`);
}

function checkMs(value: unknown, field: string, invalid: (field: string, problem: string) => never): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > MAX_TIMER_MS) {
    invalid(field, `must be a positive number of milliseconds, at most ${MAX_TIMER_MS}`);
  }
}

function resolveReconnect(
  policy: McpReconnectPolicy,
  invalid: (field: string, problem: string) => never,
): Required<McpReconnectPolicy> {
  const { maxAttempts = 5, initialDelayMs = 500, maxDelayMs = 30_000 } = policy;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 0) invalid('reconnect.maxAttempts', 'must be an integer >= 0');
  checkMs(initialDelayMs, 'reconnect.initialDelayMs', invalid);
  checkMs(maxDelayMs, 'reconnect.maxDelayMs', invalid);
  return { maxAttempts, initialDelayMs, maxDelayMs };
}

/** The largest delay `setTimeout` honours; longer ones fire at once. */
export const MAX_TIMER_MS = 2_147_483_647;

let version: string | undefined;

function agencyVersion(): string {
  if (version === undefined) {
    try {
      // Two levels up is the package root both from src/mcp/ and from dist/mcp/.
      const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
        version?: unknown;
      };
      version = typeof pkg.version === 'string' ? pkg.version : '0.0.0';
    } catch {
      version = '0.0.0';
    }
  }
  return version;
}
