import { taskIdSchema } from '../../api/schemas.ts';
import { type AgencyClient, createClient } from '../../client/index.ts';
import type { ServerFlags } from '../commands/register-server-options.ts';

/** A client for the server a command was pointed at, and how to name that server in the commands it prints. */
export type Remote = {
  client: AgencyClient;
  url: string;
  /** `agency <verb> <task id> … --server <url>`: a command to print, to run against the same server. */
  command(verb: string, ...args: string[]): string;
};

const usage = (message: string) => Object.assign(new Error(message), { exitCode: 2 });

/**
 * The client for `--server` and `--token` (else `AGENCY_TOKEN`). `localOnly` names the options that mean nothing on
 * a server, each with why: they are refused rather than ignored.
 */
export function connect(
  options: ServerFlags & Record<string, unknown>,
  localOnly: Record<string, string> = {},
  env: NodeJS.ProcessEnv = process.env,
): Remote {
  const url = serverUrl(options.server ?? '');
  for (const [name, why] of Object.entries(localOnly)) {
    const value = options[name];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    throw usage(`--${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}: ${why}`);
  }
  const token = options.token ?? env.AGENCY_TOKEN;
  if (!token)
    throw usage(
      `No token for ${url}: set AGENCY_TOKEN (or pass --token) to the token agency serve printed or keeps in <data root>/server/token`,
    );
  return {
    client: createClient({ baseUrl: url, token }),
    url,
    command: (verb, ...args) => ['agency', verb, ...args, '--server', url].join(' '),
  };
}

/** `<root>` as a task id, which it is with `--server`. */
export function taskIdArgument(root: string): string {
  if (taskIdSchema.safeParse(root).success) return root;
  throw usage(
    `"${root.slice(0, 80)}" is not a task id: with --server, <root> is the id of a task on the server (task_ and 26 characters)`,
  );
}

function serverUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw usage(
      `--server: "${text.slice(0, 200)}" is not a URL; give the one agency serve printed, e.g. http://127.0.0.1:7420`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw usage(`--server: "${text.slice(0, 200)}" is not an http:// or https:// URL`);
  if (url.username || url.password || url.search || url.hash)
    throw usage('--server: give the server without credentials, query or fragment; the token goes in AGENCY_TOKEN');
  return url.href.replace(/\/+$/, '');
}
