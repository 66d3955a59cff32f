import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The model endpoint Codex talks to, written as a `model_provider` in its `config.toml`: Codex reads its endpoint
 * from there, not from `OPENAI_BASE_URL` alone.
 */
export type CodexProvider = {
  /** The Responses API base, ending in `/v1`: `https://api.openai.com/v1`, a proxy, a test server. */
  baseUrl: string;
  /** Shown by Codex. @default 'agency' */
  name?: string | undefined;
  /** The environment variable holding the API key (the worker puts it in the task's env). @default 'OPENAI_API_KEY' */
  envKey?: string | undefined;
  /** Codex's retries of a failed request and of a dropped stream. @default Codex's own */
  requestMaxRetries?: number | undefined;
  streamMaxRetries?: number | undefined;
};

// TOML basic strings take JSON's escapes.
const str = (value: string) => JSON.stringify(value);

/** The `config.toml` agency gives Codex: its provider, when there is one, and nothing else. */
export function codexConfigToml(provider: CodexProvider | undefined): string {
  const lines = ["# Written by agency's Codex executor before every run; changes here are replaced."];
  if (provider) {
    lines.push(
      'model_provider = "agency"',
      '',
      '[model_providers.agency]',
      `name = ${str(provider.name ?? 'agency')}`,
      `base_url = ${str(provider.baseUrl)}`,
      `env_key = ${str(provider.envKey ?? 'OPENAI_API_KEY')}`,
      'wire_api = "responses"',
      ...(provider.requestMaxRetries === undefined ? [] : [`request_max_retries = ${provider.requestMaxRetries}`]),
      ...(provider.streamMaxRetries === undefined ? [] : [`stream_max_retries = ${provider.streamMaxRetries}`]),
    );
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Writes `config.toml` into `codexHome`, replacing whatever is there, so what a task may have changed in it (it is
 * writable in the sandbox, since Codex keeps its sessions there) never carries over to the next run.
 */
export async function writeCodexConfig(codexHome: string, provider: CodexProvider | undefined): Promise<void> {
  await mkdir(codexHome, { recursive: true, mode: 0o700 });
  const file = join(codexHome, 'config.toml');
  await writeFile(`${file}.tmp`, codexConfigToml(provider), { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}

// Codex names its threads itself; the worker's session id maps to the thread `codex exec resume` continues.
const threadFile = (codexHome: string, sessionId: string) => join(codexHome, 'agency-sessions', sessionId);

/** The Codex thread of a session, when one was recorded. */
export async function readThread(codexHome: string, sessionId: string): Promise<string | undefined> {
  try {
    const thread = (await readFile(threadFile(codexHome, sessionId), 'utf8')).trim();
    return /^[0-9a-f-]{36}$/.test(thread) ? thread : undefined;
  } catch {
    return undefined;
  }
}

/** Records the Codex thread a session runs in. */
export async function recordThread(codexHome: string, sessionId: string, threadId: string): Promise<void> {
  await mkdir(join(codexHome, 'agency-sessions'), { recursive: true });
  await writeFile(threadFile(codexHome, sessionId), `${threadId}\n`);
}
