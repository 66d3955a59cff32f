import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createIdGenerator } from '../../../core/ids.ts';
import { createFrameFactory } from '../../../task/journal/frame-factory.ts';
import { loadExecutor } from '../load-executor.ts';
import { installOf } from './manager-executor.ts';
import { managerTurn } from './manager-turn.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agency-manager-turn-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

const now = () => Date.UTC(2026, 10, 25);
const makeFrame = createFrameFactory({ now, newId: createIdGenerator({ now, randomBytes: (n) => new Uint8Array(n) }) });

async function journal(turn: number, types: Array<'run.started' | 'finish'>) {
  const progress = join(dir, `turn-${turn}`, 'progress');
  await mkdir(progress, { recursive: true });
  const lines = types.map((type, index) =>
    JSON.stringify(makeFrame({ type, data: { reason: 'completed' } }, index + 1)),
  );
  await writeFile(join(progress, 'events.ndjson'), lines.map((text) => `${text}\n`).join(''));
}

describe('the turn a manager runs a prompt in', () => {
  it('starts turn 1, then the next turn after a finished one', async () => {
    expect(await managerTurn(dir, 'first goal')).toEqual({ root: join(dir, 'turn-1'), turn: 1, resumed: false });
    expect(await readFile(join(dir, 'turn-1', 'task', 'brief.md'), 'utf8')).toBe('first goal\n');
    await journal(1, ['run.started', 'finish']);
    expect(await managerTurn(dir, 'second')).toMatchObject({ root: join(dir, 'turn-2'), turn: 2, resumed: false });
  });

  it('resumes a turn whose journal has no finish (its run was killed), without writing the new prompt', async () => {
    await managerTurn(dir, 'the goal');
    await journal(1, ['run.started']);
    expect(await managerTurn(dir, 'carry on')).toEqual({ root: join(dir, 'turn-1'), turn: 1, resumed: true });
    expect(await readFile(join(dir, 'turn-1', 'task', 'brief.md'), 'utf8')).toBe('the goal\n');
  });

  it('starts anew over a turn killed before its first frame', async () => {
    await managerTurn(dir, 'the goal');
    expect(await managerTurn(dir, 'again')).toMatchObject({ turn: 2, resumed: false });
  });
});

describe("the part of agency's install the manager's sandbox shows", () => {
  it('is a checkout’s root, or the node_modules an installed package lies in, with its dependencies', () => {
    expect(installOf('/src/agency/bin/agency.js')).toBe('/src/agency');
    expect(installOf('/app/node_modules/agency/bin/agency.js')).toBe('/app/node_modules');
    expect(installOf('/app/node_modules/@scope/agency/bin/agency.js')).toBe('/app/node_modules');
  });
});

describe('the manager executor as agency worker loads it', () => {
  it('refuses to load without the operator’s rules, naming the config file', async () => {
    const file = join(dir, 'config.yaml');
    await writeFile(file, 'type: manager\nname: boss\nport: 9100\n');
    const setup = { config: { file, executor: 'manager' } } as unknown as Parameters<typeof loadExecutor>[1];
    const error = await loadExecutor('manager', setup).catch((caught: unknown) => caught as Error);
    expect(error).toMatchObject({ code: 'invalid_config', message: expect.stringContaining(file) as unknown });
  });

  it('refuses to load when its sandbox is denied the network, which it needs for its model and workers', async () => {
    const file = join(dir, 'config.yaml');
    await writeFile(file, 'type: manager\nname: boss\nport: 9100\n');
    const setup = {
      config: { file, executor: 'manager', sandbox: { network: false, readOnlyPaths: [], readWritePaths: [] } },
      governance: async () => ({ policy: {}, warnings: [], requireTools: [], allow: [], offline: false }),
    } as unknown as Parameters<typeof loadExecutor>[1];
    const error = await loadExecutor('manager', setup).catch((caught: unknown) => caught as Error);
    expect(error).toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('denies its sandbox the network') as unknown,
      details: { field: 'sandbox.network' },
    });
  });

  it('takes over the run lock of a turn it resumes, and drops its cancel request: the cut-off run died with its sandbox', async () => {
    await managerTurn(dir, 'the goal');
    await journal(1, ['run.started']);
    const lock = join(dir, 'turn-1', 'progress', '.lock');
    await writeFile(
      lock,
      JSON.stringify({ pid: 2, host: 'agency-sandbox', started_at: new Date(now()).toISOString() }),
    );
    const cancelled = join(dir, 'turn-1', 'progress', 'cancel-requested');
    await writeFile(cancelled, 'a cancel of the run that was cut off\n');
    expect(await managerTurn(dir, 'carry on')).toMatchObject({ turn: 1, resumed: true });
    expect(await readFile(lock, 'utf8').catch(() => 'gone')).toBe('gone');
    expect(await readFile(cancelled, 'utf8').catch(() => 'gone')).toBe('gone');
  });
});
