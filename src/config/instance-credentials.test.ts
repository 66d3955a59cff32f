import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../core/redact.ts';
import { agencyRootAt } from './agency-root.ts';
import { EXECUTOR_SCOPE, instanceCredentials } from './instance-credentials.ts';

async function rootWith(files: Record<string, { value: string; mode: number }>) {
  const root = agencyRootAt(await mkdtemp(join(tmpdir(), 'agency-creds-')));
  await mkdir(root.credentials, { recursive: true });
  for (const [name, { value, mode }] of Object.entries(files)) {
    await writeFile(join(root.credentials, name), `${value}\n`);
    await chmod(join(root.credentials, name), mode);
  }
  return root;
}

describe('instance credentials', () => {
  it('hands the executor each file as its variable, and registers every value with the redactor', async () => {
    const root = await rootWith({ 'claude-token': { value: 'sk-ant-oat01-canary-0123456789', mode: 0o600 } });
    const redactor = createRedactor();
    const broker = instanceCredentials(root, { 'claude-token': 'CLAUDE_CODE_OAUTH_TOKEN' }, { redactor });
    await broker.preload();
    expect(redactor.redactText('token=sk-ant-oat01-canary-0123456789')).not.toContain('canary-0123456789');
    await broker.withCredentials(EXECUTOR_SCOPE, (credentials) => {
      expect(credentials.env).toEqual({ CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-canary-0123456789' });
    });
  });

  it('refuses a file others can read, naming it and the chmod fix', async () => {
    const root = await rootWith({ 'claude-token': { value: 'sk-ant-oat01-loose-0123456789', mode: 0o644 } });
    const broker = instanceCredentials(root, { 'claude-token': 'CLAUDE_CODE_OAUTH_TOKEN' });
    const file = join(root.credentials, 'claude-token');
    await expect(broker.preload()).rejects.toThrow(
      `Credential "claude-token": file ${file} has mode 0644 and is readable by other users. Run: chmod 600 ${file}`,
    );
  });

  it('refuses a missing file, saying how to create it', async () => {
    const root = await rootWith({});
    const broker = instanceCredentials(root, { 'github-token': 'GITHUB_TOKEN' });
    await expect(broker.preload()).rejects.toThrow(
      `Credential "github-token": file ${join(root.credentials, 'github-token')} does not exist. Create it with the secret as its only content, then chmod 600 it.`,
    );
  });
});
