import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hasUnfinishedTurn, prepareTurnRoot, resumeTurnRoot } from './builtin-task-root.ts';

let base: string;
let session: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'agency-turn-root-'));
  session = join(base, 'session');
  await mkdir(session);
});
afterEach(() => rm(base, { recursive: true, force: true }));

const frame = (seq: number, type: string, data?: Record<string, unknown>) =>
  JSON.stringify({
    version: 'agent.events.v1',
    id: `evt_01J00000000000000000000${String(seq).padStart(3, '0')}`,
    seq,
    ts: '2026-11-25T00:00:00.000Z',
    type,
    ...(data ? { data } : {}),
  });

// A turn root whose journal holds `frames`, with a run lock and a deliverable.
async function turnRoot(name: string, frames: string[], answer = 'deliverable'): Promise<string> {
  const root = join(session, name);
  await mkdir(join(root, 'progress', 'artifacts'), { recursive: true });
  await mkdir(join(root, 'task'), { recursive: true });
  await writeFile(join(root, 'task', 'brief.md'), 'Count.\n');
  await writeFile(join(root, 'progress', 'events.ndjson'), frames.map((line) => `${line}\n`).join(''));
  await writeFile(join(root, 'progress', '.lock'), '{"pid":1,"host":"elsewhere","started_at":"x"}\n');
  await writeFile(join(root, 'progress', 'artifacts', 'out.md'), `${answer}\n`);
  return root;
}

const started = frame(1, 'run.started');
const finished = (output: string) => frame(2, 'finish', { reason: 'completed', output });

describe('the turn roots of a builtin session', () => {
  it('says whether the last turn is a run that started and did not finish', async () => {
    expect(await hasUnfinishedTurn(session)).toBe(false);
    await turnRoot('turn-1', [started, finished('one')]);
    expect(await hasUnfinishedTurn(session)).toBe(false);
    await turnRoot('turn-2', []);
    expect(await hasUnfinishedTurn(session)).toBe(false);
    await turnRoot('turn-2', [started]);
    expect(await hasUnfinishedTurn(session)).toBe(true);
    // A later take that finished is what counts, not the lost root beside it.
    await turnRoot('turn-2.e3', [started, finished('two')]);
    expect(await hasUnfinishedTurn(session)).toBe(false);
  });

  it('resumes in a copy of the latest take: regular files only, without the run lock or any link', async () => {
    const lost = await turnRoot('turn-1', [started]);
    await symlink('/etc/passwd', join(lost, 'progress', 'artifacts', 'planted'));
    await symlink('/etc', join(lost, 'progress', 'outside'));
    expect(await resumeTurnRoot(session, 2)).toEqual({ root: join(session, 'turn-1.e2'), turn: 1 });
    const copy = join(session, 'turn-1.e2');
    expect(await readFile(join(copy, 'progress', 'events.ndjson'), 'utf8')).toBe(`${started}\n`);
    expect(await readdir(join(copy, 'progress'))).toEqual(expect.arrayContaining(['artifacts', 'events.ndjson']));
    expect(await readdir(join(copy, 'progress'))).not.toContain('.lock');
    expect(await readdir(join(copy, 'progress'))).not.toContain('outside');
    expect(await readdir(join(copy, 'progress', 'artifacts'))).toEqual(['out.md']);
    // Take 3 copies take 2's root, where the run went on, not the first one.
    await writeFile(join(copy, 'progress', 'events.ndjson'), `${started}\n${frame(2, 'run.resumed')}\n`);
    const third = await resumeTurnRoot(session, 3);
    expect(await readFile(join(third.root, 'progress', 'events.ndjson'), 'utf8')).toContain('run.resumed');
  });

  it('refuses a take whose root exists already, and a session with no turn', async () => {
    await turnRoot('turn-1', [started]);
    await mkdir(join(session, 'turn-1.e2'));
    await expect(resumeTurnRoot(session, 2)).rejects.toThrow(/turn-1\.e2 could not be made for take 2/);
    await expect(resumeTurnRoot(join(base, 'empty'), 2)).rejects.toThrow(/holds no turn to resume/);
  });

  it('refuses a turn root replaced by a link, touching nothing it points to', async () => {
    const outside = join(base, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'keep.txt'), 'untouched\n');
    await symlink(outside, join(session, 'turn-1'));
    const refused = /session\/turn-1 is not a directory \(a link or a file was put in its place\)/;
    await expect(hasUnfinishedTurn(session)).rejects.toThrow(refused);
    await expect(resumeTurnRoot(session, 2)).rejects.toThrow(refused);
    await expect(prepareTurnRoot(session, 'next')).rejects.toThrow(refused);
    expect(await readdir(outside)).toEqual(['keep.txt']);
    expect(await readdir(session)).toEqual(['turn-1']);
  });

  it("quotes each earlier turn's answer and copies its deliverables from the turn's latest take", async () => {
    await turnRoot('turn-1', [started], 'lost take');
    await turnRoot('turn-1.e2', [started, finished('from take 2')], 'take 2');
    const next = await prepareTurnRoot(session, 'Go on.');
    expect(next).toEqual({ root: join(session, 'turn-2'), turn: 2 });
    expect(await readFile(join(next.root, 'task', 'brief.md'), 'utf8')).toBe(
      'Go on.\n\n## Earlier in this session\n\n### Turn 1\n\nfrom take 2\n\n',
    );
    expect(await readFile(join(next.root, 'task', 'earlier', 'turn-1', 'out.md'), 'utf8')).toBe('take 2\n');
  });
});
