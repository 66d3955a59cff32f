import { join } from 'node:path';
import { type CredentialBroker, createCredentialBroker } from '../credentials/credential-broker.ts';
import { file } from '../credentials/credential-source.ts';
import { AgencyError, errorMessage } from '../core/errors.ts';
import type { Redactor } from '../core/redact.ts';
import type { AgencyRoot } from './agency-root.ts';

/** The one scope an instance's credentials are handed to: the executor process of each task. */
export const EXECUTOR_SCOPE = 'executor';

/**
 * The credentials an instance's config names (`credentials: { claude-token: CLAUDE_CODE_OAUTH_TOKEN }`), as a
 * credential broker over the files in `AGENCY_ROOT/credentials/`: each file must be a regular file of mode 0600
 * (a looser mode is refused, naming the file and the `chmod 600` fix), is read again for every task (a rotated
 * secret needs no restart), is registered with the redactor, and reaches the executor as its variable only.
 *
 * @example
 * const broker = instanceCredentials(root, config.credentials);
 * await broker.preload(); // at start-up: refuses a missing file or a loose mode
 */
export function instanceCredentials(
  root: AgencyRoot,
  mapping: Readonly<Record<string, string>>,
  options: { redactor?: Redactor; logger?: { warn(message: string): void } } = {},
): CredentialBroker {
  return createCredentialBroker({
    sources: Object.entries(mapping).map(([name, variable]) => ({
      name,
      tools: [EXECUTOR_SCOPE],
      from: file(join(root.credentials, name), { strictMode: true }),
      envName: variable,
    })),
    env: {},
    ...options,
  });
}

/**
 * {@link instanceCredentials}, loaded once at start-up so a missing file or a loose mode stops the instance before it
 * takes work, and every value is known to the redactor before anything is logged.
 *
 * @throws AgencyError `invalid_config` naming the config file, the credential, its file and the fix.
 */
export async function loadInstanceCredentials(
  root: AgencyRoot,
  mapping: Readonly<Record<string, string>>,
  configFile: string,
  options: { redactor?: Redactor; logger?: { warn(message: string): void } } = {},
): Promise<CredentialBroker> {
  const broker = instanceCredentials(root, mapping, options);
  try {
    await broker.preload();
  } catch (error) {
    throw new AgencyError('invalid_config', `${configFile}: credentials: ${errorMessage(error)}`, {
      details: { file: configFile, field: 'credentials' },
      cause: error,
    });
  }
  return broker;
}
