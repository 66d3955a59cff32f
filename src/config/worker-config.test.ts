import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { agencyRootAt } from './agency-root.ts';
import { loadWorkerConfig, workerConfigPath } from './worker-config.ts';

async function configFile(text: string): Promise<string> {
  const root = agencyRootAt(await mkdtemp(join(tmpdir(), 'agency-config-')));
  const file = workerConfigPath(root, 'agent-01');
  await mkdir(join(root.agents, 'agent-01'), { recursive: true });
  await writeFile(file, text);
  return file;
}

async function failure(text: string): Promise<{ message: string; issues: unknown }> {
  const file = await configFile(text);
  const error = await loadWorkerConfig(file).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!AgencyError.hasCode(error, 'invalid_config')) throw new Error(`expected invalid_config, got ${String(error)}`);
  return { message: error.message.replaceAll(`${file}:`, 'config.yaml:'), issues: error.details?.issues };
}

describe('a worker config', () => {
  it('takes defaults for what it leaves out, resolved against its instance directory', async () => {
    const file = await configFile('port: 9000\nexecutor: claude\n');
    const config = await loadWorkerConfig(file);
    expect(config).toEqual({
      file,
      instanceDir: join(file, '..'),
      name: 'agent-01',
      port: 9000,
      bind: '127.0.0.1',
      executor: 'claude',
      model: undefined,
      timeoutMs: 1_800_000,
      maxTurns: undefined,
      sessionDir: join(file, '..', 'workspaces'),
      sandbox: { network: true, readOnlyPaths: [], readWritePaths: [] },
      credentials: {},
      env: {},
      logLevel: 'info',
      historyLimit: 100,
      labels: [],
    });
  });

  it('reads every field', async () => {
    const config = await loadWorkerConfig(
      await configFile(
        [
          'name: reviewer',
          'port: 9001',
          'bind: 0.0.0.0',
          'executor: codex',
          'model: gpt-5',
          'timeout: 1h30m',
          'max_turns: 40',
          'session_dir: /srv/sessions',
          'sandbox:',
          '  network: false',
          '  read_only_paths: [/opt/tools]',
          '  read_write_paths: [/srv/cache]',
          'credentials:',
          '  openai-key: OPENAI_API_KEY',
          'env:',
          '  GIT_AUTHOR_NAME: Agent',
          'log_level: debug',
          'history_limit: 20',
        ].join('\n'),
      ),
    );
    expect(config).toMatchObject({
      name: 'reviewer',
      bind: '0.0.0.0',
      executor: 'codex',
      model: 'gpt-5',
      timeoutMs: 5_400_000,
      maxTurns: 40,
      sessionDir: '/srv/sessions',
      sandbox: { network: false, readOnlyPaths: ['/opt/tools'], readWritePaths: ['/srv/cache'] },
      credentials: { 'openai-key': 'OPENAI_API_KEY' },
      env: { GIT_AUTHOR_NAME: 'Agent' },
      logLevel: 'debug',
      historyLimit: 20,
    });
  });

  it('names the file, the line, the column and the field of each problem, and the fix', async () => {
    const { message, issues } = await failure(
      [
        'port: 90000',
        'executor: claud',
        'max-turns: 3',
        'timeout: 3 weeks',
        'sandbox:',
        '  network: off',
        '  read_write_paths:',
        '    - /srv/ok',
        '    - relative/path',
      ].join('\n'),
    );
    expect(message.split('\n')).toEqual([
      'config.yaml:1:1: port: must be a port number from 1 to 65535, e.g. 9000',
      'config.yaml:2:1: executor: must be one of builtin, claude, codex',
      'config.yaml:4:1: timeout: must be a duration such as 90s, 30m or 1h30m, between 1s and 24h (got "3 weeks")',
      'config.yaml:6:3: sandbox.network: must be true or false (YAML 1.2 reads on/off and yes/no as text)',
      'config.yaml:9:7: sandbox.read_write_paths[1]: must be an absolute path, e.g. /opt/tools',
      'config.yaml:3:1: max-turns: unknown field (did you mean "max_turns"?); remove it, or see docs/fleet.md for the fields',
    ]);
    expect(issues).toContainEqual({
      line: 2,
      column: 1,
      field: 'executor',
      message: 'must be one of builtin, claude, codex',
    });
  });

  it('says which fields are missing, and lists the fields when an unknown one is nothing like them', async () => {
    const { message } = await failure('# a worker\nsandbox:\n  proxy: http://x\n');
    expect(message.split('\n')).toEqual([
      'config.yaml:1:1: port: is required: must be a port number from 1 to 65535, e.g. 9000',
      'config.yaml:1:1: executor: is required: must be one of builtin, claude, codex',
      'config.yaml:3:3: sandbox.proxy: unknown field; the fields here are network, read_only_paths, read_write_paths; remove it, or see docs/fleet.md for the fields',
    ]);
  });

  it('refuses a credential variable given twice, or also set in env', async () => {
    const { message } = await failure(
      [
        'port: 9000',
        'executor: claude',
        'credentials:',
        '  claude-token: CLAUDE_CODE_OAUTH_TOKEN',
        '  old-token: CLAUDE_CODE_OAUTH_TOKEN',
        'env:',
        '  CLAUDE_CODE_OAUTH_TOKEN: inline',
      ].join('\n'),
    );
    expect(message.split('\n')).toEqual([
      'config.yaml:5:3: credentials.old-token: CLAUDE_CODE_OAUTH_TOKEN is already the variable of credential "claude-token"; give each credential its own',
      'config.yaml:7:3: env.CLAUDE_CODE_OAUTH_TOKEN: CLAUDE_CODE_OAUTH_TOKEN is the variable of credential "old-token"; remove it from env',
    ]);
  });

  it("takes an executor's endpoint in env only as an http(s) URL", async () => {
    const ok = await loadWorkerConfig(
      await configFile('port: 9000\nexecutor: claude\nenv:\n  ANTHROPIC_BASE_URL: http://127.0.0.1:8080\n'),
    );
    expect(ok.env).toEqual({ ANTHROPIC_BASE_URL: 'http://127.0.0.1:8080' });
    const { message } = await failure(
      [
        'port: 9000',
        'executor: codex',
        'env:',
        '  OPENAI_BASE_URL: llm-proxy.internal/v1',
        '  ANTHROPIC_BASE_URL: file:///etc/passwd',
        '  OTHER_BASE_URL: ""',
      ].join('\n'),
    );
    const why = 'must be an http(s) URL of the model API, e.g. https://llm-proxy.internal or http://127.0.0.1:8080';
    expect(message.split('\n')).toEqual([
      `config.yaml:4:3: env.OPENAI_BASE_URL: ${why}`,
      `config.yaml:5:3: env.ANTHROPIC_BASE_URL: ${why}`,
      `config.yaml:6:3: env.OTHER_BASE_URL: ${why}`,
    ]);
  });

  it('refuses credential names that are not plain file names', async () => {
    const { message } = await failure('port: 9000\nexecutor: claude\ncredentials:\n  ../escape: TOKEN\n');
    expect(message).toContain(
      'config.yaml:4:3: credentials.../escape: must be the name of a file in AGENCY_ROOT/credentials/',
    );
  });

  it('reports YAML syntax errors at their line, and a document that is not a map', async () => {
    expect((await failure('port: 9000\nexecutor: [claude\nbind: x\n')).message).toMatch(
      /^config\.yaml:\d+:\d+: \(yaml\): .*; fix the YAML syntax there$/m,
    );
    expect((await failure('port: 1\nport: 2\nexecutor: claude\n')).message).toMatch(
      /^config\.yaml:2:1: \(yaml\): Map keys must be unique; fix the YAML syntax there$/,
    );
    expect((await failure('- port: 9000\n')).message).toBe(
      'config.yaml:1:1: (top level): must be a map of fields, e.g. "port: 9000" and "executor: claude" on their own lines',
    );
  });

  it('explains a missing file with what to write in it', async () => {
    const error = await loadWorkerConfig('/nonexistent/agents/x/config.yaml').catch((caught: unknown) => caught);
    expect((error as Error).message).toBe(
      '/nonexistent/agents/x/config.yaml: no such file. Create it with at least a port and an executor, e.g.\n' +
        '  port: 9000\n  executor: claude\n(docs/fleet.md has every field)',
    );
  });

  it('refuses a worker name that is not a directory name', () => {
    expect(() => workerConfigPath(agencyRootAt('/r'), '../x')).toThrow(/worker name "..\/x" must be letters/);
  });
});
