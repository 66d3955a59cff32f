// The GitHub director in a process of its own, killed with SIGKILL at several points of an issue's flow and started
// again each time: it resumes from state.json without a second pull request, comment, reaction, task or status issue.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findCanary, filesUnder } from '../../../../test/support/canary-scan.ts';
import {
  GITHUB_TOKEN,
  type GitHubDirectorFixture,
  githubDirectorFixture,
  until,
} from '../../../../test/support/github-director-fixture.ts';
import type { Match } from '../../../../test/support/github-fake/github-fake.ts';

const MAIN = join(import.meta.dirname, '../../../../test/support/github-director-main.ts');
let fixture: GitHubDirectorFixture;
const children: ChildProcess[] = [];
let output = '';

afterEach(async () => {
  for (const child of children) child.kill('SIGKILL');
  children.length = 0;
  await fixture.close();
});

async function startProcess(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN, fixture.root.root, join(fixture.dir, '..', '..', '..', 'tasks')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return child;
}

async function killAt(match: Match): Promise<void> {
  const held = fixture.fake.pause(match, 'after');
  const child = await startProcess();
  await held.arrived;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  held.release();
}

describe('the GitHub director killed with SIGKILL', () => {
  it('resumes each time without doing anything twice, and keeps the token to itself', async () => {
    fixture = await githubDirectorFixture();
    const number = fixture.fake.human('ana').openIssue('[gh] Survive kills', 'body');
    await killAt({ operation: 'issues/create' });
    await killAt({ operation: 'reactions/create-for-issue' });
    await killAt({ operation: 'pulls/create' });
    await killAt({ operation: 'issues/create-comment' });
    const child = await startProcess();
    const phase = async () => (await fixture.state()).issues[String(number)]?.phase;
    await until(async () => (await phase()) === 'awaiting_approval', 'the pull request');
    fixture.fake.human('ana').react({ issue: (await fixture.state()).issues[String(number)]!.pull! }, '+1');
    await until(async () => (await phase()) === 'done', 'done');

    const store = fixture.fake.store;
    expect(store.issues.filter((issue) => issue.pull)).toHaveLength(1);
    expect(store.issues.filter((issue) => issue.title === '[gh] status')).toHaveLength(1);
    expect(store.reactionsOn({ issue: number }).filter((r) => r.user === 'agency-bot')).toHaveLength(1);
    expect(store.comments.filter((c) => c.issue_number === number).map((c) => c.body.split(' ')[0])).toEqual([
      'Opened',
      'Done:',
    ]);
    expect(fixture.dispatch.tasks()).toHaveLength(1);

    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(store.issues.find((issue) => issue.title === '[gh] status')!.state).toBe('closed');
    const scanned = filesUnder(fixture.root.root, ['credentials']);
    expect(scanned.some((file) => file.endsWith('director.log'))).toBe(true);
    expect(scanned.some((file) => file.endsWith('.git/config'))).toBe(true);
    expect(findCanary(scanned, GITHUB_TOKEN, fixture.root.root)).toEqual([]);
    expect(fixture.fake.answers.join('\n')).not.toContain(GITHUB_TOKEN.slice(4, 20));
    expect(output).not.toContain(GITHUB_TOKEN.slice(4, 20));
    expect(JSON.stringify(fixture.dispatch.tasks())).not.toContain(GITHUB_TOKEN.slice(4, 20));
  }, 60_000);
});
