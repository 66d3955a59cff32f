import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { defineTool } from '../../src/tools/define-tool.ts';
import { FIXTURE_PLAN, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

// A real full disk: the task folder lives on a tiny tmpfs (the tests run as root), and a tool fills it.
let mount: string | undefined;
let skipReason: string | undefined;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'agency-enospc-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k', 'tmpfs', dir], { stdio: 'pipe' });
    mount = dir;
  } catch (error) {
    skipReason = `cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`;
  }
});

afterAll(() => {
  if (mount) execFileSync('umount', [mount]);
});

describe('a full disk during a governed run', () => {
  it('halts with journal_not_durable, and no tool runs after the failed write', async (context) => {
    if (!mount) return context.skip(skipReason);
    const template = await makeTaskFolder();
    const root = join(mount, 'task-root');
    await mkdir(root);
    await cp(join(template, 'task'), join(root, 'task'), { recursive: true });
    await rm(template, { recursive: true });

    const ran: string[] = [];
    // Fills the disk as a side effect, then returns a large result that the journal must hold.
    const fill = defineTool({
      name: 'fill_disk',
      description: 'writes a large scratch file',
      input: z.object({ n: z.number() }),
      effects: 'write',
      execute: async ({ n }) => {
        ran.push(`fill_disk:${n}`);
        await writeFile(join(mount as string, `scratch-${n}`), Buffer.alloc(200 * 1024, 1)).catch(() => {});
        return 'x'.repeat(60_000);
      },
    });
    const plan = {
      ...FIXTURE_PLAN,
      allowed_tools: ['fill_disk'],
      steps: [{ id: 's1', title: 'fill', tools: ['fill_disk'] }],
    };
    let calls = 0;
    const model = phaseModel({
      gather: () => 'nothing to gather',
      plan: () => JSON.stringify(plan),
      act: () => ({ toolCalls: [{ name: 'fill_disk', input: { n: ++calls } }] }),
    });
    const runner = createRunner({ model, tools: [fill], approvals: 'auto' });
    const outcome = await runner.doTask(root, { budgets: { maxIterations: 40 } }).then(
      (result) => result,
      (error: unknown) => error,
    );
    const error = (outcome as { error?: { code: string } }).error ?? outcome;
    expect(error).toMatchObject({ code: 'journal_not_durable' });

    // Every tool that ran was journaled (durably) before it ran: nothing ran after the write failed.
    const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'), { repair: false }).catch(() => ({
      frames: [],
    }));
    const journaledCalls = frames
      .filter((frame) => frame.type === 'tool.call')
      .map((frame) => `fill_disk:${(frame.data?.args as { n: number }).n}`);
    expect(ran.length).toBeGreaterThan(0);
    expect(ran).toEqual(journaledCalls);
    expect(await readFile(join(root, 'progress', 'state.json'), 'utf8').then(JSON.parse)).toMatchObject({
      version: 'agent.state.v1',
    });
  }, 60_000);
});
