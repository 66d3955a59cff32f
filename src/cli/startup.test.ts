import { execFile } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const repo = join(import.meta.dirname, '../..');
const agency = join(repo, 'bin/agency.js');
const exec = promisify(execFile);

// Prints, at exit, every module the process resolved: the repo's files by path, packages by name.
const listModules = `data:text/javascript,${encodeURIComponent(`
  import { registerHooks } from 'node:module';
  const seen = new Set();
  registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.add(result.url); return result; } });
  process.on('exit', () => process.stderr.write('MODULES ' + JSON.stringify([...seen]) + '\\n'));
`)}`;

async function loadedBy(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ files: string[]; packages: string[]; stdout: string; stderr: string }> {
  const { stdout, stderr } = await exec(process.execPath, ['--import', listModules, agency, ...args], {
    env: { ...process.env, ...env },
  }).catch((error: { stdout: string; stderr: string }) => error);
  const urls = JSON.parse(/^MODULES (.*)$/m.exec(stderr)?.[1] ?? '[]') as string[];
  const paths = urls.filter((url) => url.startsWith('file:')).map((url) => relative(repo, fileURLToPath(url)));
  const packages = new Set(paths.flatMap((path) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.slice(1) ?? []));
  return { files: paths.filter((path) => !path.includes('node_modules')), packages: [...packages], stdout, stderr };
}

describe('agency start-up', () => {
  it.each([
    [[], 'agency'],
    ...[
      'init',
      'run',
      'resume',
      'tail',
      'status',
      'approvals',
      'approve',
      'deny',
      'stop',
      'memory',
      'prompts',
      'serve',
      'mcp',
      'worker',
      'director',
      'validate',
      'task',
      'fleet',
      'shutdown',
      'kill',
      'eval',
    ].map((command) => [[command], command] as [string[], string]),
  ])('%j --help prints what it always has', async (args, fixture) => {
    const { stdout } = await exec(process.execPath, [agency, ...args, '--help']);
    expect(stdout).toBe(await readFile(join(import.meta.dirname, '__fixtures__/help', `${fixture}.txt`), 'utf8'));
  });

  it('--help loads the command line and commander, and nothing of the runtime', async () => {
    const { files, packages, stdout } = await loadedBy(['--help']);
    expect(stdout).toMatch(/^Usage: agency /);
    expect(packages).toEqual(['commander']);
    expect(files.filter((path) => !path.startsWith('src/cli/') && path !== 'bin/agency.js')).toEqual([]);
    expect(files).not.toContain('src/cli/commands/run.ts');
    expect(files).not.toContain('src/cli/commands/inspect.ts');
    expect(files.filter((path) => path.startsWith('src/cli/commands/') && !path.includes('/register-'))).toEqual([]);
  });

  it('status loads its own command, not the runner, the models, the tools or the state validator', async () => {
    const { files, packages, stdout } = await loadedBy(['status', join(repo, 'examples/research')]);
    expect(stdout).toContain('not started');
    expect(files).toContain('src/cli/commands/inspect.ts');
    expect(files).not.toContain('src/cli/commands/run.ts');
    expect(files.filter((path) => /^src\/(model|tools|agent|sandbox)\/|^src\/task\/runner\.ts$/.test(path))).toEqual(
      [],
    );
    expect(packages.filter((name) => name.startsWith('@ai-sdk/') || name === 'ajv')).toEqual([]);
  });

  it('status --server loads the client and the API schemas, not the task folder code, the runner or the server', async () => {
    const { files, packages, stderr } = await loadedBy(
      ['status', 'task_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--server', 'http://127.0.0.1:9'],
      { AGENCY_TOKEN: 'token-0123456789abcdef' },
    );
    expect(stderr).toContain('no answer from the server');
    expect(files).toContain('src/cli/commands/remote-inspect.ts');
    expect(files).toContain('src/client/index.ts');
    expect(files).not.toContain('src/cli/commands/inspect.ts');
    expect(
      files.filter((path) =>
        /^src\/(model|tools|agent|sandbox|server|service)\/|^src\/task\/(runner|layout|journal)/.test(path),
      ),
    ).toEqual([]);
    expect(packages.filter((name) => name.startsWith('@ai-sdk/') || ['ajv', 'hono', 'pino'].includes(name))).toEqual(
      [],
    );
  });

  it('validate loads the config checks, not the worker daemon or the HTTP server', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-startup-'));
    await writeFile(join(dir, 'config.yaml'), 'port: 9000\nexecutor: claude\n');
    const { files, packages, stdout } = await loadedBy(['validate', join(dir, 'config.yaml'), '--root', dir]);
    expect(stdout).toMatch(/^ok /);
    expect(files).toContain('src/config/validate-configs.ts');
    expect(files.filter((path) => /^src\/(fleet\/worker|server|task\/runner)/.test(path))).toEqual([]);
    expect(packages.filter((name) => ['hono', '@hono/node-server', 'pino'].includes(name))).toEqual([]);
  });

  it('prompts ls loads the file store, not the runner, the models or a database driver', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-startup-'));
    const { files, packages, stdout } = await loadedBy(['prompts', 'ls', '--dir', dir]);
    expect(stdout).toMatch(/^runner\.plan@2 +built-in/m);
    expect(files).toContain('src/prompts/file/file-prompt-store.ts');
    expect(files.filter((path) => /^src\/(model|agent|sandbox|server|task\/runner|prompts\/sql)/.test(path))).toEqual(
      [],
    );
    expect(packages.filter((name) => name.startsWith('@ai-sdk/') || ['pg', 'hono', 'pino'].includes(name))).toEqual([]);
  });

  it('fleet loads discovery and the worker client, not the runner, the models, the tools or the task layer', async () => {
    const { files, packages, stdout } = await loadedBy(['fleet', '--ports', '1-1']);
    expect(stdout).toContain('No components found.');
    expect(files).toContain('src/fleet/discovery/discovery.ts');
    // Of the task layer, only the pid check (`task/lock.ts`) that `agency kill` shares.
    const heavy = /^src\/(model|tools|agent|sandbox|task|server|service\/task)/;
    expect(files.filter((path) => heavy.test(path) && path !== 'src/task/lock.ts')).toEqual([]);
    expect(packages.filter((name) => name.startsWith('@ai-sdk/') || name === 'ajv' || name === 'hono')).toEqual([]);
  });
});
