// The GitHub director as a real `agency director gh` process, with a real `agency worker` (the scripted executor
// writing into the workdir it is given), against the fake GitHub API and a local bare remote: an issue gets 👀, a
// branch, a pull request after a review, and is done on a 👍, never merged; killed with SIGKILL at several points and
// restarted, it does nothing twice; `agency validate` checks its config.
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findCanary, filesUnder } from '../support/canary-scan.ts';
import { cli } from '../support/cli.ts';
import { startDirectorProcess } from '../support/director-process.ts';
import { bareRemote, commitsOn, filesOn, ISOLATED_GIT_ENV } from '../support/git-remote.ts';
import { type GitHubFake, startGitHubFake } from '../support/github-fake/github-fake.ts';
import { GITHUB_TOKEN, until } from '../support/github-director-fixture.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

const children: ChildProcess[] = [];
let fake: GitHubFake | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await fake?.close();
  fake = undefined;
});

function directorConfig(apiUrl: string, remote: string, worker: string): string {
  return [
    'type: github',
    'name: gh',
    'port: 9160',
    'repo: octo/widgets',
    `api_url: ${apiUrl}`,
    `clone_url: ${remote}`,
    'poll_interval: 200ms',
    'assignee: agency-bot',
    'approvers: [ana]',
    'discovery:',
    '  method: static',
    `  static: [${worker}]`,
    '  refresh_interval: 200ms',
    'prompts:',
    '  work: "write issue-{{number}}.txt"',
    '  review: "review the change; say LGTM if it is ready"',
    'settings:',
    '  max_reviews: 1',
    '',
  ].join('\n');
}

// A data root with the worker `w1` (allowed to work in the director's workspaces), the token, and a bare remote.
async function dataRoot(): Promise<{ root: string; remote: string; workspaces: string }> {
  const root = await mkdtemp(join(tmpdir(), 'agency-gh-e2e-'));
  const workspaces = join(root, 'directors', 'gh', 'workspaces');
  await mkdir(workspaces, { recursive: true });
  await mkdir(join(root, 'agents', 'w1'), { recursive: true });
  const worker = `port: 9000\nexecutor: claude\nsandbox:\n  read_write_paths: [${workspaces}]\n`;
  await writeFile(join(root, 'agents', 'w1', 'config.yaml'), worker);
  await mkdir(join(root, 'credentials'), { recursive: true, mode: 0o700 });
  await writeFile(join(root, 'credentials', 'github-token'), `${GITHUB_TOKEN}\n`);
  await chmod(join(root, 'credentials', 'github-token'), 0o600);
  return { root, remote: await bareRemote(root), workspaces };
}

describe('agency director (github), the process', () => {
  it('takes an issue to 👀, a branch, a reviewed pull request and done on a 👍, through a real worker', async () => {
    const { root, remote, workspaces } = await dataRoot();
    fake = await startGitHubFake({ token: GITHUB_TOKEN, remote });
    const worker = await startWorkerProcess('w1', root);
    children.push(worker.child);
    const config = join(root, 'directors', 'gh', 'config.yaml');
    await writeFile(config, directorConfig(fake.url, remote, worker.url));
    const validated = await cli(['validate', config]);
    expect(validated.code, validated.stderr).toBe(0);

    const ana = fake.human('ana');
    const number = ana.openIssue('[gh] Add a widget', 'It goes in issue-N.txt');
    const director = await startDirectorProcess(root, 'gh', ISOLATED_GIT_ENV);
    children.push(director.child);
    const store = fake.store;
    const pull = await until(() => store.issues.find((issue) => issue.pull), 'the pull request', 45_000);

    expect(store.reactionsOn({ issue: number }).map((r) => [r.user, r.content])).toEqual([['agency-bot', 'eyes']]);
    expect(store.issue(number)!.assignees).toEqual(['agency-bot']);
    const branch = `agency/issue-${number}`;
    expect(pull.pull).toMatchObject({ head: branch, base: 'main' });
    expect(pull.body).toContain(`Closes #${number}`);
    expect(filesOn(remote, branch)).toEqual(['README.md', `issue-${number}.txt`]);
    expect(commitsOn(remote, branch)[0]).toBe(`#${number}: [gh] Add a widget`);
    const comments = () => store.comments.filter((c) => c.issue_number === number).map((c) => c.body);
    await until(() => comments().length === 1, 'the comment on the pull request');
    expect(comments()[0]).toMatch(new RegExp(`^Opened #${pull.number} from \`${branch}\`. The review said LGTM.`));

    ana.react({ issue: pull.number }, '+1');
    await until(() => comments().length === 2, 'done');
    expect(comments()[1]).toMatch(new RegExp(`^Done: #${pull.number} approved by @ana. It is yours to merge.`));
    expect(store.issue(pull.number)!.pull).not.toHaveProperty('merged', true);

    type Entry = { state: string; task: { task_id: string; worker: { url: string } }; log: { message: string }[] };
    // The comment comes first, then the phase is recorded: wait for the entry to be completed.
    const entry = await until(async () => {
      const body = (await (await fetch(`${director.url}/history/issue-${number}`)).json()) as Entry;
      return body.state === 'completed' ? body : undefined;
    }, 'the completed history entry');
    expect(entry.task.worker.url).toBe(worker.url);
    const task = await worker.json<{ workdir: string; prompt: string }>(`/history/${entry.task.task_id}`);
    expect(task.workdir).toBe(join(workspaces, `issue-${number}`));
    expect(task.prompt).toContain(`write issue-${number}.txt`);
    expect(entry.log.map((line) => line.message)).toEqual([
      'phase: taken',
      'phase: working',
      'phase: publishing',
      'phase: awaiting_approval',
      'phase: done',
    ]);

    const status = await until(async () => {
      const body = (await (await fetch(`${director.url}/status`)).json()) as { state: string; config: object };
      return body.state === 'idle' ? body : undefined;
    }, 'an idle director');
    expect(status.config).toMatchObject({ director_type: 'github', repo: 'octo/widgets' });
    const shutdown = await cli(['shutdown', '--directors', '--url', director.url, '--ports', '1-1']);
    expect(shutdown.code, shutdown.stderr).toBe(0);
    expect(await director.exited).toBe(0);
    expect(store.issues.find((issue) => issue.title === '[gh] status')!.state).toBe('closed');
    expect(fake.drift).toEqual([]);
    expect(findCanary(filesUnder(root, ['credentials']), GITHUB_TOKEN, root)).toEqual([]);
    expect(director.output() + worker.output()).not.toContain(GITHUB_TOKEN.slice(4, 20));
  }, 60_000);

  it('killed with SIGKILL at four points and restarted each time, makes one of each and keeps the token', async () => {
    const { root, remote } = await dataRoot();
    fake = await startGitHubFake({ token: GITHUB_TOKEN, remote });
    const worker = await startWorkerProcess('w1', root);
    children.push(worker.child);
    await writeFile(join(root, 'directors', 'gh', 'config.yaml'), directorConfig(fake.url, remote, worker.url));
    const number = fake.human('ana').openIssue('[gh] Survive kills', 'body');
    let output = '';
    const start = async () => {
      const director = await startDirectorProcess(root, 'gh', ISOLATED_GIT_ENV);
      children.push(director.child);
      director.child.once('exit', () => (output += director.output()));
      return director;
    };
    for (const operation of ['issues/create', 'reactions/create-for-issue', 'pulls/create', 'issues/create-comment']) {
      const held = fake.pause({ operation }, 'after');
      const director = await start();
      await held.arrived;
      director.child.kill('SIGKILL');
      await director.exited;
      held.release();
    }
    const director = await start();
    const store = fake.store;
    const state = async () => {
      const file = JSON.parse(await readFile(join(root, 'directors', 'gh', 'state.json'), 'utf8')) as {
        state: { issues: Record<string, { phase: string; pull: number | null }> };
      };
      return file.state.issues[String(number)];
    };
    const pull = await until(
      async () => {
        const issue = await state();
        return issue?.phase === 'awaiting_approval' ? issue.pull : undefined;
      },
      'the pull request',
      45_000,
    );
    fake.human('ana').react({ issue: pull }, '+1');
    await until(async () => (await state())?.phase === 'done', 'done');

    expect(store.issues.filter((issue) => issue.pull)).toHaveLength(1);
    expect(store.issues.filter((issue) => issue.title === '[gh] status')).toHaveLength(1);
    expect(store.reactionsOn({ issue: number }).filter((r) => r.user === 'agency-bot')).toHaveLength(1);
    expect(store.comments.filter((c) => c.issue_number === number).map((c) => c.body.split(' ')[0])).toEqual([
      'Opened',
      'Done:',
    ]);
    expect((await worker.json<{ total: number }>('/history')).total).toBe(1);
    const shutdown = await cli(['shutdown', '--directors', '--url', director.url, '--ports', '1-1']);
    expect(shutdown.code, shutdown.stderr).toBe(0);
    expect(await director.exited).toBe(0);
    const scanned = filesUnder(root, ['credentials']);
    expect(scanned.some((file) => file.endsWith('director.log'))).toBe(true);
    expect(scanned.some((file) => file.endsWith('.git/config'))).toBe(true);
    expect(findCanary(scanned, GITHUB_TOKEN, root)).toEqual([]);
    expect(fake.answers.join('\n')).not.toContain(GITHUB_TOKEN.slice(4, 20));
    expect(output + worker.output()).not.toContain(GITHUB_TOKEN.slice(4, 20));
    expect(fake.drift).toEqual([]);
  }, 60_000);

  it('is refused by agency validate and agency director with a config naming the bad field', async () => {
    const { root, remote } = await dataRoot();
    const config = join(root, 'directors', 'gh', 'config.yaml');
    const text = directorConfig('http://127.0.0.1:9', remote, 'http://127.0.0.1:9000');
    await writeFile(config, text.replace('write issue-{{number}}.txt', 'fix {{issue}}'));
    const validated = await cli(['validate', config]);
    expect(validated.code).toBe(2);
    expect(validated.stderr).toContain('prompts.work: unknown placeholder {{issue}}: use {{number}}, {{title}} or');
    const started = await startDirectorProcess(root, 'gh').catch((error: Error) => error.message);
    expect(started).toContain('prompts.work: unknown placeholder {{issue}}');
  });
});
