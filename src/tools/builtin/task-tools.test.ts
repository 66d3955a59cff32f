import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
