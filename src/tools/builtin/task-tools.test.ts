import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSandbox, createBwrapSandbox } from '../../sandbox/index.ts';
import { taskPaths } from '../../task/layout.ts';
import { createToolRegistry } from '../tool-registry.ts';
import { builtinTools } from './builtin-tools.ts';
import { createMemoryKvStore } from './kv-store.ts';
import { taskTools } from './task-tools.ts';

const bwrap = createBwrapSandbox();
const status = await checkSandbox(bwrap);

let root: string;

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'agency-task-tools-')));
  mkdirSync(join(root, 'task'));
  mkdirSync(join(root, 'progress'));
  writeFileSync(join(root, 'task', 'brief.md'), '# Brief\n');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const call = (toolName: string, input: unknown) => ({ toolCallId: 'c1', toolName, input });

describe('taskTools', () => {
  it('offers the governed task set and creates progress/artifacts', () => {
    const tools = taskTools(taskPaths(root), { testRunner: { command: ['npm', 'test'] } });
    expect(tools.map((tool) => tool.name)).toEqual([
      'file_glob',
      'fs_read',
      'fs_write',
      'http_fetch',
      'http_post',
      'json_validate',
      'links_check',
      'sandbox_exec',
      'test_runner',
    ]);
    expect(existsSync(join(root, 'progress', 'artifacts'))).toBe(true);
    const none = taskTools(taskPaths(root), { network: false, exec: false });
    expect(none.map((tool) => tool.name)).toEqual(['file_glob', 'fs_read', 'fs_write', 'json_validate']);
  });

  it('reads task/ and progress/ by label, and writes only progress/', async () => {
    const registry = createToolRegistry(taskTools(taskPaths(root), { network: false, exec: false }));
    expect((await registry.run(call('fs_read', { path: 'task/brief.md' }))).output).toMatchObject({
      content: '# Brief\n',
    });
    const written = await registry.run(call('fs_write', { path: 'progress/artifacts/out.md', content: 'done' }));
    expect(written.output).toMatchObject({ path: 'progress/artifacts/out.md' });
    expect((await registry.run(call('fs_read', { path: 'progress/artifacts/out.md' }))).output).toMatchObject({
      content: 'done',
    });
    const intoTask = await registry.run(call('fs_write', { path: 'task/brief.md', content: 'changed' }));
    expect(intoTask.ok).toBe(false);
    const climbing = await registry.run(call('fs_write', { path: 'progress/../task/brief.md', content: 'changed' }));
    expect(climbing.ok).toBe(false);
    expect(readFileSync(join(root, 'task', 'brief.md'), 'utf8')).toBe('# Brief\n');
  });

  it.skipIf(!status.ok)('runs sandbox_exec in progress/artifacts/', async () => {
    const registry = createToolRegistry(taskTools(taskPaths(root), { network: false, sandbox: bwrap }));
    const outcome = await registry.run(call('sandbox_exec', { command: ['sh', '-c', 'pwd; echo x > made.txt'] }));
    expect(outcome.output).toMatchObject({ exit_code: 0, stdout: `${join(root, 'progress', 'artifacts')}\n` });
    expect(existsSync(join(root, 'progress', 'artifacts', 'made.txt'))).toBe(true);
  });
});

// The runner's files in progress/, as a run in Act has them.
const CONTROL: Record<string, string> = {
  'spec.json': '{"approvals":"file"}\n',
  'state.json': '{"phase":"act"}\n',
  'events.ndjson': '{"seq":1}\n',
  'plan/0001.json': '{"version":"plan.v1"}\n',
  'approvals/decisions/.keep': '',
  'verify/.keep': '',
  'steps/.keep': '',
};
const FORGED = ['spec.json', 'state.json', 'events.ndjson', 'plan/0001.json', 'approvals/decisions/x.json'];

function writeControlFiles(): void {
  for (const [name, content] of Object.entries(CONTROL)) {
    mkdirSync(join(root, 'progress', name, '..'), { recursive: true });
    writeFileSync(join(root, 'progress', name), content);
  }
}

function expectControlUntouched(): void {
  for (const [name, content] of Object.entries(CONTROL)) {
    expect(readFileSync(join(root, 'progress', name), 'utf8')).toBe(content);
  }
  for (const dir of ['approvals/decisions', 'verify', 'steps']) {
    expect(readdirSync(join(root, 'progress', dir))).toEqual(['.keep']);
  }
  expect(readdirSync(join(root, 'progress', 'plan'))).toEqual(['0001.json']);
  const top = readdirSync(join(root, 'progress')).filter((name) => !['notes.md', 'artifacts'].includes(name));
  expect(top.sort()).toEqual(['approvals', 'events.ndjson', 'plan', 'spec.json', 'state.json', 'steps', 'verify']);
}

describe("taskTools and the runner's files", () => {
  it('refuses fs_write to every control file through a planted link, in every mode', async () => {
    writeControlFiles();
    const registry = createToolRegistry(taskTools(taskPaths(root), { network: false, exec: false }));
    symlinkSync('..', join(root, 'progress', 'artifacts', 'p'));
    symlinkSync('../state.json', join(root, 'progress', 'artifacts', 'x'));
    for (const name of FORGED) {
      for (const mode of ['overwrite', 'append', 'create']) {
        const outcome = await registry.run(
          call('fs_write', { path: `progress/artifacts/p/${name}`, content: 'forged', mode }),
        );
        expect(outcome.error?.code).toBe('path_read_only');
      }
    }
    const direct = await registry.run(call('fs_write', { path: 'progress/STOP', content: '' }));
    expect(direct.error?.code).toBe('path_read_only');
    const viaFile = await registry.run(call('fs_write', { path: 'progress/artifacts/x', content: '{}' }));
    expect(viaFile.error?.code).toBe('path_invalid');
    expectControlUntouched();
    // Reading a control file is allowed, by its name or through a link: the model may read progress/ anyway.
    const read = await registry.run(call('fs_read', { path: 'progress/artifacts/p/spec.json' }));
    expect(read.output).toMatchObject({ path: 'progress/spec.json', content: CONTROL['spec.json'] });
    // The notes files and artifacts/ stay writable, by any name.
    const notes = await registry.run(call('fs_write', { path: 'progress/artifacts/p/notes.md', content: 'n' }));
    expect(notes.output).toMatchObject({ path: 'progress/notes.md' });
  });

  it.skipIf(!status.ok)('refuses the planted-link attack end to end, and sandbox_exec cannot write them', async () => {
    writeControlFiles();
    const registry = createToolRegistry(taskTools(taskPaths(root), { network: false, sandbox: bwrap }));
    const planted = await registry.run(call('sandbox_exec', { command: ['ln', '-s', '..', 'p'] }));
    expect(planted.output).toMatchObject({ exit_code: 0 });
    for (const name of FORGED) {
      const outcome = await registry.run(call('fs_write', { path: `progress/artifacts/p/${name}`, content: '{}' }));
      expect(outcome.error?.code).toBe('path_read_only');
    }
    const progress = join(root, 'progress');
    const script = [
      `echo forged > p/spec.json`,
      `echo forged > ../state.json`,
      `echo forged > ${progress}/events.ndjson`,
      `echo '{}' > ${progress}/approvals/decisions/x.json`,
      `mkdir -p ../plan && echo forged > ../plan/0001.json`,
      `ln ${progress}/state.json hard`,
      'true',
    ].join('; ');
    const exec = await registry.run(call('sandbox_exec', { command: ['sh', '-c', script] }));
    expect(exec.output).toMatchObject({ exit_code: 0 });
    expectControlUntouched();
    expect(readdirSync(join(progress, 'artifacts'))).toEqual(['p']);
  });
});

describe('builtinTools', () => {
  it('includes each group only when configured, sorted by name', () => {
    expect(builtinTools().map((tool) => tool.name)).toEqual(['json_validate']);
    const names = builtinTools({ readRoots: [root], kv: { store: createMemoryKvStore() } }).map((tool) => tool.name);
    expect(names).toEqual(['file_glob', 'fs_read', 'json_validate', 'kv']);
  });

  it('refuses a test runner without a workdir and bad limits when the tools are created', () => {
    expect(() => builtinTools({ testRunner: { command: ['npm', 'test'] } })).toThrow(/needs a workdir/);
    expect(() => builtinTools({ readRoots: [root], limits: { fs_read: { maxChars: 0 } } })).toThrow(
      /fs_read: maxChars must be a positive whole number/,
    );
  });
});
