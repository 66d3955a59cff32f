// A task's `role` on the server: checked against the roles registry (unknown → 400 naming the known ones, never
// where they live), its budgets under the request's, and its persona and tools in the run, over real HTTP.
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openOperatorService } from '../../src/cli/commands/operator-service.ts';
import { agencyRootAt } from '../../src/config/agency-root.ts';
import { createRoleRegistry } from '../../src/roles/registry.ts';
import { createLogger } from '../../src/obs/logger.ts';
import { silentLogger } from '../../src/service/service-logger.ts';
import { serverFixture } from '../support/server-fixture.ts';
import { startOpenAICompatibleServer, summariseAnswers, textOf } from '../support/openai-compatible-server.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agency-roles-root-'));
  await mkdir(join(dir, 'roles'));
  await writeFile(
    join(dir, 'roles', 'summariser.yaml'),
    'description: Summarises\npersona: You are summariser-9.\ntools: [fs_read, fs_write]\nbudgets:\n  max_iterations: 33\n  max_total_tokens: 50000\n',
  );
  await writeFile(join(dir, 'roles', 'broken.yaml'), 'description: B\npersona: P\ntools: [shell]\n');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('POST /agent/tasks/do/async with a role', () => {
  it("records the role and puts its budgets under the request's", async () => {
    const { api, root } = await serverFixture({ service: { roles: createRoleRegistry(dir) } });
    const response = await api('/agent/tasks/do/async', {
      method: 'POST',
      json: { brief: '# Sum up', role: 'summariser', budgets: { max_iterations: 12 }, hold: true },
    });
    expect(response.status).toBe(202);
    const { task_id } = (await response.json()) as { task_id: string };
    const request = JSON.parse(await readFile(join(root.tasks, task_id, 'request.json'), 'utf8'));
    expect(request.role).toBe('summariser');
    expect(request.spec.budgets).toMatchObject({ maxIterations: 12, maxTotalTokens: 50_000 });
  });

  it.each([
    [
      'an unknown role',
      'poet',
      /^role: unknown role "poet"; the roles are broken, researcher, reviewer, summariser, writer$/,
    ],
    ['a path for a name', '../../etc/passwd', /^role: Role "..\/..\/etc\/passwd" must be lowercase letters/],
    ['a role whose file is wrong', 'broken', /^role: the role "broken" cannot be read on this server/],
  ])('answers 400 for %s, without a path of the server', async (_case, role, message) => {
    const errors: unknown[] = [];
    const logger = { ...silentLogger, error: (fields: unknown) => errors.push(fields) };
    const { api, root } = await serverFixture({ service: { roles: createRoleRegistry(dir), logger } });
    const response = await api('/agent/tasks/do/async', { method: 'POST', json: { brief: '# Sum up', role } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe('validation_error');
    expect(body.message).toMatch(message);
    expect(body.message).not.toContain(dir);
    expect(await readdirOrEmpty(root.tasks)).toEqual([]);
    if (role === 'broken') expect(JSON.stringify(errors)).toContain('unknown tool');
  });

  it('answers 400 when the server has no roles', async () => {
    const { api } = await serverFixture();
    const response = await api('/agent/tasks/do/async', {
      method: 'POST',
      json: { brief: '# Sum up', role: 'writer' },
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('this server has no roles');
  });
});

describe('the operator service runs a task in its role', () => {
  it("gives the run the role's persona and only its tools", async () => {
    const seen: Array<{ system: string; tools: string[] }> = [];
    const local = await startOpenAICompatibleServer((phase, turn, messages, tools = []) => {
      seen.push({ system: messages[0] ? textOf(messages[0]) : '', tools });
      return summariseAnswers(phase, turn, messages);
    });
    const config = join(dir, 'config.json');
    await writeFile(config, '{}\n');
    const { service } = await openOperatorService(
      { model: `openai-compatible:${local.url}#local-model`, allowAutoApprovals: true, config },
      agencyRootAt(dir),
      createLogger({ level: 'silent' }),
    );
    try {
      const brief = '# Summarise the notes\n\nWrite a one-line summary of task/input.txt to artifacts/summary.md.\n';
      const files = [{ name: 'input.txt', content: 'Agency runs governed agents.\n' }];
      const result = await service.startAndWait(
        { brief, role: 'summariser', files, approvals: { mode: 'auto' } },
        { name: 'test' },
        'summary',
      );
      expect(result.finish_reason).toBe('completed');
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((request) => request.system.includes('You are summariser-9.'))).toBe(true);
      const offered = new Set(seen.flatMap((request) => request.tools));
      expect(offered.has('fs_read')).toBe(true);
      expect(['file_glob', 'http_fetch', 'sandbox_exec'].filter((tool) => offered.has(tool))).toEqual([]);
    } finally {
      await service.close();
      local.server.close();
    }
  }, 60_000);
});

async function readdirOrEmpty(path: string): Promise<string[]> {
  const { readdir } = await import('node:fs/promises');
  return readdir(path).catch(() => []);
}
