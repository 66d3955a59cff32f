import { AgencyError } from '../core/errors.ts';
import type { Tool, ToolContext } from './define-tool.ts';
import type { CredentialBroker, ToolCredentials } from '../credentials/credential-broker.ts';

const BOUND = new WeakMap<ToolContext, ToolCredentials>();

/**
 * Wraps a tool so that each call receives its credentials through its context: inside `execute`, call
 * {@link toolCredentials}`(context)`. The credentials are loaded when the call starts and disposed of (values
 * forgotten, temp files deleted) when it ends, or as soon as it is cancelled or times out.
 *
 * @example
 * const fetchGitHub = wrapToolWithCredentials(
 *   defineTool({ name: 'http_fetch', …, execute: async ({ url }, context) =>
 *     fetch(url, { headers: { authorization: `Bearer ${toolCredentials(context).get('github')}` } }) }),
 *   broker,
 * );
 */
export function wrapToolWithCredentials<Input, Output>(
  tool: Tool<Input, Output>,
  broker: CredentialBroker,
): Tool<Input, Output> {
  return Object.freeze({
    ...tool,
    async execute(input: Input, context: ToolContext): Promise<Output> {
      const credentials = await broker.credentialsFor(tool.name);
      const onAbort = () => void credentials.dispose();
      context.signal.addEventListener('abort', onAbort, { once: true });
      const bound: ToolContext = { ...context };
      BOUND.set(bound, credentials);
      try {
        return await tool.execute(input, bound);
      } finally {
        context.signal.removeEventListener('abort', onAbort);
        await credentials.dispose();
      }
    },
  });
}

/**
 * The credentials of the current call of a tool wrapped with {@link wrapToolWithCredentials}.
 *
 * @throws AgencyError `credential_unavailable` when the tool was not wrapped.
 */
export function toolCredentials(context: ToolContext): ToolCredentials {
  const credentials = BOUND.get(context);
  if (!credentials)
    throw new AgencyError(
      'credential_unavailable',
      'This tool call has no credentials: wrap the tool with wrapToolWithCredentials(tool, broker)',
    );
  return credentials;
}
