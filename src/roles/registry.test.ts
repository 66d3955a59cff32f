import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinTools } from '../tools/builtin/builtin-tools.ts';
import { createMemoryKvStore } from '../tools/builtin/kv-store.ts';
import { createRoleRegistry } from './registry.ts';
import { BUILTIN_TOOL_NAMES, defineRole } from './role.ts';
import { MAX_ROLE_FILE_BYTES } from './role-file.ts';

let root: string;
let roles: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agency-roles-'));
  roles = join(root, 'roles');
  await mkdir(roles);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const analyst = `description: Reads data and reports on it
persona: You are an analyst.
tools: [fs_read, sql]
memory: { channel: analysis }
policy: strict
budgets:
  max_iterations: 12
  max_cost_usd: 0.5
  max_time_s: 90
`;

describe('the roles registry', () => {
  it('lists the built-in roles and the files, and reads a file into a role', async () => {
    await writeFile(join(roles, 'analyst.yaml'), analyst);
    const registry = createRoleRegistry(root);

    expect(await registry.names()).toEqual(['analyst', 'researcher', 'reviewer', 'writer']);
    expect(await registry.get('analyst')).toEqual({
      name: 'analyst',
      description: 'Reads data and reports on it',
      persona: 'You are an analyst.',
      tools: ['fs_read', 'sql'],
      memory: { channel: 'analysis' },
      policy: 'strict',
      budgets: { maxIterations: 12, maxCostUsd: 0.5, maxWallClockMs: 90_000 },
    });
    expect((await registry.get('researcher')).tools).toContain('http_fetch');
  });

  it('lets a file replace a built-in role of the same name', async () => {
    await writeFile(join(roles, 'writer.yaml'), 'description: Writes haiku\npersona: You write haiku.\n');
    expect(await createRoleRegistry(root).get('writer')).toEqual({
      name: 'writer',
      description: 'Writes haiku',
      persona: 'You write haiku.',
    });
  });

  it('names the known roles for an unknown one', async () => {
    await expect(createRoleRegistry(root).get('poet')).rejects.toThrow(
      /Unknown role "poet"; the roles are researcher, reviewer, writer \(add one as .*roles\/poet\.yaml\)/,
    );
  });

  it.each(['../x', '../../etc/passwd', 'x/../../y', '.hidden', 'Researcher', '', 'a'.repeat(64)])(
    'refuses the role name %j before touching the disk',
    async (name) => {
      await expect(createRoleRegistry(root).get(name)).rejects.toMatchObject({ code: 'invalid_argument' });
    },
  );

  it('refuses a role file that is a symlink leading out of the roles folder', async () => {
    const outside = join(root, '..', `${root.split('/').at(-1)}-outside.yaml`);
    await writeFile(outside, 'description: Escaped\npersona: You escaped.\n');
    await symlink(outside, join(roles, 'escape.yaml'));
    try {
      await expect(createRoleRegistry(root).get('escape')).rejects.toThrow(/escape\.yaml: resolves to .*outside/);
    } finally {
      await rm(outside, { force: true });
    }
  });

  it('refuses an oversized role file, naming its size and the limit', async () => {
    await writeFile(join(roles, 'huge.yaml'), `description: Big\npersona: ${'x'.repeat(MAX_ROLE_FILE_BYTES)}\n`);
    await expect(createRoleRegistry(root).get('huge')).rejects.toThrow(
      /huge\.yaml: \d+ bytes is over the 65536-byte limit/,
    );
  });

  it('refuses a YAML alias bomb', async () => {
    const levels = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
    for (let i = 1; i < 9; i++) {
      const previous = String.fromCharCode(96 + i);
      const next = String.fromCharCode(97 + i);
      levels.push(`${next}: &${next} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    await writeFile(join(roles, 'bomb.yaml'), `${levels.join('\n')}\ndescription: Boom\npersona: Boom\n`);
    await expect(createRoleRegistry(root).get('bomb')).rejects.toThrow(
      /bomb\.yaml:1:1: \(yaml\): Excessive alias count/,
    );
  });

  it('names the file, line and field of an unknown key and of an unknown tool', async () => {
    await writeFile(join(roles, 'typo.yaml'), 'description: Typo\npersona: P\ntool: [fs_read]\n');
    await writeFile(join(roles, 'badtool.yaml'), 'description: Bad\npersona: P\ntools:\n  - fs_read\n  - rm_rf\n');
    const registry = createRoleRegistry(root);

    await expect(registry.get('typo')).rejects.toThrow(
      /typo\.yaml:3:1: tool: unknown field \(did you mean "tools"\?\)/,
    );
    await expect(registry.get('badtool')).rejects.toThrow(
      /badtool\.yaml:5:5: tools\[1\]: unknown tool "rm_rf"; the built-in tools are file_glob, fs_read/,
    );
  });
});

describe('defineRole', () => {
  it('checks a role in code, naming each bad field', () => {
    expect(() => defineRole({ name: '../x', description: '', persona: 'p', tools: ['nope' as never] })).toThrow(
      /Role "..\/x": "name" must be lowercase.*"description" must say what the role is for.*"tools.0" unknown tool "nope"/,
    );
  });

  it('names every tool of the built-in catalogue, and no other', () => {
    const every = builtinTools({
      readRoots: [{ label: 'r', path: root }],
      writeRoots: [{ label: 'w', path: root }],
      network: {},
      exec: { workdir: root },
      testRunner: { command: ['true'], workdir: root },
      kv: { store: createMemoryKvStore() },
      sql: { database: { readOnly: true, dialect: 'sqlite' } as never },
      sandbox: 'none',
    });
    expect(every.map((tool) => tool.name).sort()).toEqual([...BUILTIN_TOOL_NAMES]);
  });
});
