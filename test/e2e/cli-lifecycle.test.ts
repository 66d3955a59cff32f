// The CLI in every state of a run: stop and Ctrl-C while it waits, status after a kill, a corrupt journal, a closed
// pipe, and resume with raised budgets.
import { spawn } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agency, cli, waitForRequest } from '../support/cli.ts';
import { makeTaskFolder } from '../support/governed-fixture.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';

let local: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
beforeAll(async () => {
  local = await startOpenAICompatibleServer();
});
afterAll(() => local.server.close());

const modelFlag = () => ['--model', `openai-compatible:${local.url}#local-model`];

function startWaitingRun(root: string) {
  const run = spawn(process.execPath, [agency, 'run', root, ...modelFlag(), '--approvals', 'file'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  run.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => run.once('exit', (code) => resolve(code)));
  return { run, exited, output: () => stdout };
}

describe('stopping a run that waits for an approval', () => {
  it.each([
    ['agency stop', 'stopped'],
    ['Ctrl-C', 'cancelled'],
  ] as const)(
    '%s ends it within a second as %s, exit 3, and agency resume finishes it',
    async (how, reason) => {
      const root = await makeTaskFolder();
      const { run, exited } = startWaitingRun(root);
      await waitForRequest(root);
      const asked = performance.now();
      if (how === 'agency stop') expect((await cli(['stop', root])).code).toBe(0);
      else run.kill('SIGINT');
      expect(await exited).toBe(3);
      expect(performance.now() - asked).toBeLessThan(how === 'agency stop' ? 2_500 : 1_000);
      const status = await cli(['status', root]);
      expect(status.stdout).toContain(`stopped (${reason})`);
      expect(status.stdout).toContain(`agency resume ${root}`);
      const resumed = await cli(['resume', root, ...modelFlag(), '--approvals', 'auto']);
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain('Finished: completed');
    },
    60_000,
  );
});

describe('agency status tells the truth', () => {
  it('says a run whose process was killed is interrupted, and how to go on', async () => {
    const root = await makeTaskFolder();
    const { run, exited } = startWaitingRun(root);
    await waitForRequest(root);
    run.kill('SIGKILL');
    await exited;
    const status = await cli(['status', root]);
    expect(status.stdout).toMatch(/Status: +interrupted: it was waiting_approval but its process \(pid \d+/);
    expect(status.stdout).toContain(`Next:      agency resume ${root}`);
    expect(JSON.parse((await cli(['status', root, '--json'])).stdout)).toMatchObject({
      running_pid: null,
      interrupted: true,
      resumable: true,
    });
  }, 60_000);

  it('reports a corrupt journal line in status and approvals as tail does', async () => {
    const root = await makeTaskFolder();
    expect((await cli(['run', root, ...modelFlag(), '--approvals', 'auto', '--max-iterations', '2'])).code).toBe(3);
    const events = join(root, 'progress', 'events.ndjson');
    const lines = (await readFile(events, 'utf8')).split('\n');
    lines.splice(2, 0, '{"not": "a frame"');
    await writeFile(events, lines.join('\n'));
    const tail = await cli(['tail', root]);
    for (const command of ['status', 'approvals']) {
      const result = await cli([command, root]);
      expect(result.code).toBe(tail.code);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain('events.ndjson');
      expect(result.stderr).toContain('line 3');
    }
  }, 60_000);
});

describe('agency tail into a closed pipe', () => {
  it('ends quietly when the reader goes away (tail | head -1)', async () => {
    const root = await makeTaskFolder();
    expect((await cli(['run', root, ...modelFlag(), '--approvals', 'auto'])).code).toBe(0);
    // Far more than a pipe holds, so tail is still writing when head has gone.
    const events = join(root, 'progress', 'events.ndjson');
    const frames = (await readFile(events, 'utf8')).trim().split('\n');
    const last = JSON.parse(frames.at(-1) as string) as { seq: number };
    const more = Array.from({ length: 3_000 }, (_, index) =>
      JSON.stringify({ ...last, seq: last.seq + index + 1, type: 'warning', message: 'x'.repeat(200) }),
    );
    await writeFile(events, `${[...frames, ...more].join('\n')}\n`);
    const piped = spawn('bash', ['-c', `"${process.execPath}" "${agency}" tail "${root}" | head -1`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    piped.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    piped.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await new Promise((resolve) => piped.once('exit', resolve));
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(stderr).toBe('');
  }, 60_000);
});

describe('damaged files: every fix an error suggests works', () => {
  it.each([
    ['missing', undefined],
    ['not JSON', 'garbage'],
  ] as const)(
    'spec.json %s: resume, even without --model, rewrites it from the journal',
    async (_, text) => {
      const root = await makeTaskFolder();
      expect((await cli(['run', root, ...modelFlag(), '--approvals', 'auto', '--max-iterations', '2'])).code).toBe(3);
      const spec = join(root, 'progress', 'spec.json');
      if (text === undefined) await rm(spec);
      else await writeFile(spec, text);
      const resumed = await cli(['resume', root, '--max-iterations', '40']);
      expect(resumed.stderr).toBe('');
      expect(resumed.code).toBe(0);
      expect(JSON.parse(await readFile(spec, 'utf8'))).toMatchObject({ budgets: { max_iterations: 40 } });
    },
    60_000,
  );

  it.each([
    ['missing', undefined, 'is missing'],
    ['not JSON', '{"version":', 'is unreadable'],
  ] as const)(
    'state.json %s: status tells the run from the journal, and its hint works',
    async (_, text, why) => {
      const root = await makeTaskFolder();
      expect((await cli(['run', root, ...modelFlag(), '--approvals', 'auto', '--max-iterations', '2'])).code).toBe(3);
      const state = join(root, 'progress', 'state.json');
      if (text === undefined) await rm(state);
      else await writeFile(state, text);
      const status = await cli(['status', root]);
      expect(status.code).toBe(0);
      expect(status.stdout).toContain(`finished (budget.iterations), told from the journal: ${state} ${why}`);
      expect(status.stdout).toContain(`Next:      agency resume ${root}`);
      expect(JSON.parse((await cli(['status', root, '--json'])).stdout)).toMatchObject({
        state: null,
        journal: { finish_reason: 'budget.iterations' },
        resumable: true,
      });
      expect((await cli(['resume', root, ...modelFlag(), '--max-iterations', '40'])).code).toBe(0);
      expect((await cli(['status', root])).stdout).toMatch(/Status: +completed \(completed\)/);
    },
    60_000,
  );
});

describe('a closed pipe never abandons a run', () => {
  it('agency run … | head -1 prints one line, and the run goes on to its end with its own exit code', async () => {
    const root = await makeTaskFolder();
    const command = `"${process.execPath}" "${agency}" run "${root}" ${modelFlag().join(' ')} --approvals auto`;
    const piped = spawn('bash', ['-c', `set -o pipefail; ${command} | head -1`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    piped.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    piped.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => piped.once('exit', resolve));
    expect(stdout.split('\n').filter(Boolean)).toHaveLength(1);
    expect(stderr).toBe('');
    // pipefail: the pipeline's code is agency's, which is the completed run's.
    expect(code).toBe(0);
    const status = await cli(['status', root]);
    expect(status.stdout).toContain('completed');
  }, 60_000);
});

describe('agency resume with budget options', () => {
  it('raises the budget of a run stopped by it, and the journal says who did', async () => {
    const root = await makeTaskFolder();
    expect((await cli(['run', root, ...modelFlag(), '--approvals', 'auto', '--max-iterations', '2'])).code).toBe(3);
    // Without a budget option, or with the same limit, nothing changes: it stops again, and nothing is journaled.
    expect((await cli(['resume', root, ...modelFlag()])).code).toBe(3);
    expect((await cli(['resume', root, ...modelFlag(), '--max-iterations', '2'])).code).toBe(3);
    const before = await readFile(join(root, 'progress', 'events.ndjson'), 'utf8');
    expect(before).not.toContain('"type":"budget.changed"');
    const resumed = await cli(['resume', root, ...modelFlag(), '--max-iterations', '40'], { USER: 'ana' });
    expect(resumed.code).toBe(0);
    const journal = await readFile(join(root, 'progress', 'events.ndjson'), 'utf8');
    const changes = journal.split('\n').filter((line) => line.includes('"type":"budget.changed"'));
    expect(changes).toHaveLength(1);
    expect(JSON.parse(changes[0]!)).toMatchObject({ message: 'Budgets changed by ana: max_iterations 2 → 40' });
  }, 60_000);
});
