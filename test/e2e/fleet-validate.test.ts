// `agency validate`, the real binary: one file or every config under a data root, each problem with its file, line
// and field, exit 2 when any config is invalid.
import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli } from '../support/cli.ts';

async function dataRoot(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'agency-validate-'));
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), text);
  }
  return root;
}

describe('agency validate', () => {
  it('passes a valid worker config, with its credentials in place and private', async () => {
    const root = await dataRoot({
      'agents/agent-01/config.yaml':
        'port: 9000\nexecutor: claude\ncredentials:\n  claude-token: CLAUDE_CODE_OAUTH_TOKEN\n',
      'credentials/claude-token': 'sk-ant-oat01-validate-0123456789\n',
    });
    await chmod(join(root, 'credentials/claude-token'), 0o600);
    const result = await cli(['validate', join(root, 'agents/agent-01/config.yaml'), '--root', root]);
    expect(result).toEqual({
      code: 0,
      stdout: 'ok       agents/agent-01/config.yaml: worker agent-01 on 127.0.0.1:9000, executor claude\n',
      stderr: '',
    });
  });

  it('--all checks every config under AGENCY_ROOT, names each problem, and exits 2', async () => {
    const root = await dataRoot({
      'agents/a1/config.yaml': 'port: 9000\nexecutor: builtin\n',
      'agents/a2/config.yaml': 'port: 9000\nexecutor: claude\n',
      'agents/a3/config.yaml': 'port: 9002\nexecutor: claude\nmax_turns: many\ncredentials:\n  claude-token: TOKEN\n',
      'directors/web-main/config.yaml': 'type: web\nname: web-main\nport: 8443\nbind: 0.0.0.0\n',
      'credentials/claude-token': 'sk-ant-oat01-loose-0123456789\n',
    });
    await chmod(join(root, 'credentials/claude-token'), 0o644);
    const result = await cli(['validate', '--all'], { AGENCY_ROOT: root });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe(
      [
        'ok       agents/a1/config.yaml: worker a1 on 127.0.0.1:9000, executor builtin',
        'ok       directors/web-main/config.yaml: director web-main (web) on port 8443',
        '2 valid, 2 invalid (data root ' + root + ')',
        '',
      ].join('\n'),
    );
    expect(result.stderr).toBe(
      [
        'invalid  agents/a2/config.yaml (worker):',
        `  ${root}/agents/a2/config.yaml: port: 9000 is also the port of ${root}/agents/a1/config.yaml; give each its own`,
        'invalid  agents/a3/config.yaml (worker):',
        `  ${root}/agents/a3/config.yaml:3:1: max_turns: must be a whole number of turns, e.g. 50`,
        '',
      ].join('\n'),
    );
  });

  it('refuses a credential file others can read, with the chmod fix', async () => {
    const root = await dataRoot({
      'agents/a1/config.yaml': 'port: 9000\nexecutor: claude\ncredentials:\n  claude-token: TOKEN\n',
      'credentials/claude-token': 'sk-ant-oat01-loose-0123456789\n',
    });
    await chmod(join(root, 'credentials/claude-token'), 0o640);
    const result = await cli(['validate', '--all', '--root', root]);
    const file = join(root, 'credentials/claude-token');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`has mode 0640 and is readable by other users. Run: chmod 600 ${file}`);
  });

  it('tells a director config from a worker one by its type field outside the data root', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agency-validate-loose-'));
    await writeFile(join(dir, 'sched.yaml'), 'type: scheduler\nname: nightly\ndiscovery:\n  port_range: [9000]\n');
    const result = await cli(['validate', join(dir, 'sched.yaml'), '--root', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `invalid  sched.yaml (director):\n  ${join(dir, 'sched.yaml')}:4:3: discovery.port_range: must be two ports, first to last, e.g. [9000, 9199]\n`,
    );
  });

  it("checks a scheduler's schedule with its own schema: a bad cron names the entry, line and field", async () => {
    const root = await dataRoot({
      'directors/sched/config.yaml': [
        'type: scheduler',
        'name: sched',
        'port: 9101',
        'schedule:',
        '  - name: nightly',
        '    cron: "0 2 * *"',
        '    prompt: Clean up',
        '    workdir: /srv/app',
        '',
      ].join('\n'),
    });
    const result = await cli(['validate', '--all', '--root', root]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      'config.yaml:6:5: schedule[0].cron: must have 5 fields (minute hour day month weekday), e.g. "0 2 * * *"; it has 4',
    );
  });

  it('wants a file or --all', async () => {
    const result = await cli(['validate']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('give one config file, or --all');
  });
});
