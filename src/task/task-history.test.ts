import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadTaskHistory } from './task-history.ts';

describe('loadTaskHistory', () => {
  let root: string | undefined;
  afterEach(async () => {
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  async function taskRoot(files: Record<string, string>): Promise<string> {
    root = await mkdtemp(join(tmpdir(), 'agency-history-'));
    await mkdir(join(root, 'task'));
    for (const [name, text] of Object.entries(files)) await writeFile(join(root, 'task', name), text);
    return root;
  }

  it('reads history.jsonl or history.md, and nothing when neither exists', async () => {
    expect(await loadTaskHistory(await taskRoot({ 'history.jsonl': '{"role":"user","content":"a"}\n' }))).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'a' }] },
    ]);
    await rm(root ?? '', { recursive: true });
    expect(await loadTaskHistory(await taskRoot({ 'history.md': '## assistant\nb\n' }))).toEqual([
      { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
    ]);
    await rm(root ?? '', { recursive: true });
    expect(await loadTaskHistory(await taskRoot({}))).toEqual([]);
  });

  it('refuses a folder with both files', async () => {
    const dir = await taskRoot({ 'history.jsonl': '', 'history.md': '' });
    await expect(loadTaskHistory(dir)).rejects.toMatchObject({
      code: 'history_invalid',
      message: 'task/history.jsonl and task/history.md both exist: keep one of them',
    });
  });

  it('reports malformed lines with the task-relative file name', async () => {
    const dir = await taskRoot({ 'history.jsonl': '{"role":"user","content":"a"}\nnope\n' });
    await expect(loadTaskHistory(dir)).rejects.toThrow(/^task\/history\.jsonl:2: not valid JSON/);
  });

  it('reads through an injected reader', async () => {
    const read: string[] = [];
    const messages = await loadTaskHistory('/r', {
      readFile: async (path) => {
        read.push(path);
        return path.endsWith('.md') ? '## user\nfrom the guard' : null;
      },
    });
    expect(read.sort()).toEqual(['/r/task/history.jsonl', '/r/task/history.md']);
    expect(messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'from the guard' }] }]);
  });
});
