// The GitHub director as a real `agency director gh` process, killed with SIGKILL at each point of each turn (work,
// review, follow-up): before its request reaches the worker, after the worker took it but before the director heard
// the answer, and after the director recorded it. A proxy in front of the real worker holds the request at that
// point. Restarted each time, the director ends with one task on the worker (three turns in one session), one pull
// request and one comment of each kind.
import type { ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDirectorProcess } from '../support/director-process.ts';
import { bareRemote, ISOLATED_GIT_ENV } from '../support/git-remote.ts';
import { type GitHubFake, startGitHubFake } from '../support/github-fake/github-fake.ts';
import { GITHUB_TOKEN, until } from '../support/github-director-fixture.ts';
import { type HoldingProxy, type HoldMatch, startHoldingProxy } from '../support/holding-proxy.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

const children: ChildProcess[] = [];
let fake: GitHubFake | undefined;
let proxy: HoldingProxy | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await fake?.close();
  await proxy?.close();
  fake = proxy = undefined;
});

async function dataRoot(): Promise<{ root: string; remote: string; workspaces: string }> {
  const root = await mkdtemp(join(tmpdir(), 'agency-gh-kills-'));
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

function directorConfig(apiUrl: string, remote: string, worker: string): string {
  return [
    ...['type: github', 'name: gh', 'port: 9160', 'repo: octo/widgets', `api_url: ${apiUrl}`, `clone_url: ${remote}`],
    ...['poll_interval: 200ms', 'assignee: agency-bot', 'approvers: [ana]', 'discovery:', '  method: static'],
    ...[`  static: [${worker}]`, '  refresh_interval: 200ms', 'prompts:', '  work: "write issue-{{number}}.txt"'],
    ...['  review: "review the change; say LGTM if it is ready"', 'settings:', '  max_reviews: 1', ''],
  ].join('\n');
}

const POST_TASK: HoldMatch = { method: 'POST', path: /^\/task$/ };
const POST_CONTINUE: HoldMatch = { method: 'POST', path: /^\/task\/[^/?]+\/continue$/ };
// The first look at a task's state after its turn went out: the director has recorded the turn by then.
const GET_TASK: HoldMatch = { method: 'GET', path: /^\/task\/[^/?]+(\?.*)?$/ };

describe('agency director (github) killed at each point of a turn', () => {
  it('does each turn once: one task on the worker, one pull request, one comment of each kind', async () => {
    const { root, remote } = await dataRoot();
    fake = await startGitHubFake({ token: GITHUB_TOKEN, remote });
    const worker = await startWorkerProcess('w1', root);
    children.push(worker.child);
    proxy = await startHoldingProxy(worker.url);
    const held = proxy;
    await writeFile(join(root, 'directors', 'gh', 'config.yaml'), directorConfig(fake.url, remote, held.url));
    const ana = fake.human('ana');
    const number = ana.openIssue('[gh] Survive kills in turns', 'body');
    const start = async () => {
      const director = await startDirectorProcess(root, 'gh', ISOLATED_GIT_ENV);
      children.push(director.child);
      return director;
    };
    // before: the turn's request never reaches the worker; between: the worker took it, the director never heard;
    // after: the director recorded it and looks at the task (its first look after a restart is after the record).
    const killAt = async (send: HoldMatch, point: 'before' | 'between' | 'after') => {
      const hold =
        point === 'after' ? held.hold(GET_TASK, 'before') : held.hold(send, point === 'before' ? 'before' : 'after');
      const director = await start();
      await hold.arrived;
      director.child.kill('SIGKILL');
      await director.exited;
      hold.drop();
    };
    const state = async () => {
      const file = JSON.parse(await readFile(join(root, 'directors', 'gh', 'state.json'), 'utf8')) as {
        state: { issues: Record<string, { phase: string; pull: number | null; turn: { kind: string } | null }> };
      };
      return file.state.issues[String(number)];
    };

    for (const point of ['before', 'between', 'after'] as const) await killAt(POST_TASK, point);
    for (const point of ['before', 'between', 'after'] as const) await killAt(POST_CONTINUE, point);
    let director = await start();
    const pull = await until(
      async () => ((await state())?.phase === 'awaiting_approval' ? (await state())!.pull : undefined),
      'the pull request',
      45_000,
    );
    director.child.kill('SIGKILL');
    await director.exited;

    ana.comment(pull, 'Please also note it in the README');
    for (const point of ['before', 'between', 'after'] as const) await killAt(POST_CONTINUE, point);
    director = await start();
    const comments = () => fake!.store.comments.filter((c) => c.issue_number === number).map((c) => c.body);
    await until(() => comments().some((body) => body.startsWith('Pushed a follow-up')), 'the follow-up', 45_000);
    ana.react({ issue: pull }, '+1');
    await until(async () => (await state())?.phase === 'done', 'done', 45_000);

    expect(fake.store.issues.filter((issue) => issue.pull)).toHaveLength(1);
    expect(comments().map((body) => body.split(' ')[0])).toEqual(['Opened', 'Pushed', 'Done:']);
    const history = await worker.json<{ total: number; items: { task_id: string }[] }>('/history');
    expect(history.total).toBe(1);
    const task = await worker.json<{ turns: number; session_id: string }>(`/history/${history.items[0]!.task_id}`);
    expect(task.turns).toBe(3);
    expect(held.seen.filter((line) => /^POST \/task$/.test(line))).toHaveLength(2);
    director.child.kill('SIGKILL');
  }, 180_000);
});
