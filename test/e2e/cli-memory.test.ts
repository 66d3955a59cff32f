// Memory that outlives a run: `agency run --memory sqlite:<file>` (or "memory" in the operator config) gives every
// run the same store; what one run learns, the next one recalls, and the journal counts both without payloads.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { type RunCommandOptions, runCommand } from '../../src/cli/commands/run.ts';
import { openRedisMemoryStore } from '../../src/memory/stores/redis/redis-memory-store.ts';
import { openSqliteMemoryStore } from '../../src/memory/stores/sqlite/sqlite-memory-store.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';
import { findRedisServer, startRedis } from '../support/redis.ts';

const toolTurns = (options: LanguageModelV4CallOptions) =>
  options.prompt.filter((message) => message.role === 'tool').length;

// Plans one write with the built-in fs_write and does it; its last act reply is what the run learned.
function writingModel(learned: string) {
  return phaseModel({
    gather: () => 'The input says agency runs governed agents (task/input.txt).',
    plan: () =>
      JSON.stringify({
        goal: 'Write the summary',
        steps: [{ id: 's1', title: 'Write it', tools: ['fs_write'] }],
        allowed_tools: ['fs_write'],
        acceptance: [{ id: 'a1', criterion: 'summary exists', check: { type: 'file_exists', path: 'artifacts/s.md' } }],
      }),
    act: (options) =>
      toolTurns(options) === 0
        ? { toolCalls: [{ id: 'w1', name: 'fs_write', input: { path: 'progress/artifacts/s.md', content: 'ok\n' } }] }
        : learned,
  });
}

async function workDir(config: unknown = {}): Promise<{ dir: string; config: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-cli-memory-'));
  await writeFile(join(dir, 'config.json'), JSON.stringify(config));
  return { dir, config: join(dir, 'config.json') };
}

async function run(root: string, model: ReturnType<typeof phaseModel>, options: Partial<RunCommandOptions>) {
  const out = { write: () => {}, isTTY: false };
  return runCommand(root, { model: 'scripted', modelObject: model, approvals: 'auto', ...options }, 'start', out);
}

async function memoryFrames(root: string): Promise<EventFrame[]> {
  const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
  return frames.filter((frame) => frame.type === 'memory.read' || frame.type === 'memory.write');
}

describe('agency run with a SQLite memory', () => {
  it('a second run recalls what the first one learned, and both journals show it as counts', async () => {
    const { dir, config } = await workDir();
    const memory = `sqlite:${join(dir, 'memory.db')}`;
    const learned = 'Summary of the notes written; the notes describe governed agents.';
    const first = await makeTaskFolder();
    expect(await run(first, writingModel(learned), { memory, config })).toBe(0);
    const firstFrames = await memoryFrames(first);
    expect(firstFrames.filter((f) => f.type === 'memory.write').map((f) => f.data?.scopes)).toEqual([
      expect.arrayContaining(['agent:agency']),
    ]);
    expect(JSON.stringify(firstFrames)).not.toContain('governed agents');

    const secondModel = writingModel('Done again.');
    const second = await makeTaskFolder();
    expect(await run(second, secondModel, { memory, config })).toBe(0);
    const gatherPrompt = JSON.stringify(secondModel.calls[0]?.options.prompt);
    expect(gatherPrompt).toContain(learned);
    const reads = (await memoryFrames(second)).filter((f) => f.type === 'memory.read');
    expect(reads.some((f) => f.data?.phase === 'gather' && Number(f.data?.count) >= 1)).toBe(true);
    expect(JSON.stringify(reads)).not.toContain(learned);

    const store = openSqliteMemoryStore({ path: join(dir, 'memory.db') });
    const agent = await store.query([{ kind: 'agent', id: 'agency' }], { topK: 10, tags: ['learnings'] });
    expect(agent.map((entry) => entry.text).sort()).toEqual(['Done again.', learned].sort());
    store.close();
  }, 60_000);

  it.skipIf('missing' in findRedisServer())(
    'works the same with --memory redis://, its password never journaled',
    async () => {
      const server = await startRedis({ password: 'hunter2' });
      try {
        const { config } = await workDir();
        const learned = 'Summary written; the notes describe governed agents.';
        const first = await makeTaskFolder();
        expect(await run(first, writingModel(learned), { memory: server.url, config })).toBe(0);
        const secondModel = writingModel('Done again.');
        const second = await makeTaskFolder();
        expect(await run(second, secondModel, { memory: server.url, config })).toBe(0);
        expect(JSON.stringify(secondModel.calls[0]?.options.prompt)).toContain(learned);
        const frames = JSON.stringify([...(await memoryFrames(first)), ...(await memoryFrames(second))]);
        expect(frames).toContain('memory.read');
        expect(frames).not.toContain('hunter2');
        const store = await openRedisMemoryStore({ url: server.url });
        const agent = await store.query([{ kind: 'agent', id: 'agency' }], { topK: 10, tags: ['learnings'] });
        expect(agent.map((entry) => entry.text).sort()).toEqual(['Done again.', learned].sort());
        await store.close();
      } finally {
        await server.stop();
      }
    },
    60_000,
  );

  it('takes the store and channels from the operator config, relative to the config file', async () => {
    const { dir, config } = await workDir({ memory: { store: 'sqlite:mem/shared.db', agent: 'writer', org: 'acme' } });
    await import('node:fs/promises').then((fs) => fs.mkdir(join(dir, 'mem')));
    const root = await makeTaskFolder();
    expect(await run(root, writingModel('Learned from the config store.'), { config })).toBe(0);
    const store = openSqliteMemoryStore({ path: join(dir, 'mem', 'shared.db') });
    const found = await store.query([{ kind: 'agent', id: 'writer' }], { topK: 5 });
    expect(found.map((entry) => entry.text)).toEqual(['Learned from the config store.']);
    store.close();
  }, 60_000);

  it('refuses a bad store before the run starts, naming where it came from and never echoing a password', async () => {
    const { config } = await workDir();
    const root = await makeTaskFolder();
    const model = writingModel('never');
    await expect(run(root, model, { memory: 'mysql://admin:hunter2@db/x', config })).rejects.toThrow(
      /--memory: "mysql:\/\/\*\*\*@db\/x" is not a memory store/,
    );
    await expect(run(root, model, { memory: 'zep://u:hunter2@cache:6379', config })).rejects.toThrow(
      /--memory: "zep:\/\/\*\*\*@cache:6379" holds credentials; .* the API key goes in ZEP_API_KEY/,
    );
    await expect(run(root, model, { memory: 'sqlite:', config })).rejects.toThrow(/names no file/);
    const bad = await workDir({ memory: { store: 'ftp://x', agent: '' } });
    await expect(run(root, model, { config: bad.config })).rejects.toThrow(/memory\.agent/);
    expect(model.calls).toHaveLength(0);
  });
});
