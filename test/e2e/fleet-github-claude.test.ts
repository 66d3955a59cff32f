// The GitHub director as a real `agency director gh` process with a real `agency worker` running the real Claude Code
// CLI (in its sandbox) against a scripted Anthropic Messages API: the issue's work turn makes Claude write a file in
// the director's fresh clone with its Write tool, the review turn resumes the same Claude session and answers LGTM,
// and the director commits, pushes, opens the pull request and is done on a 👍. Skipped, saying why, when Claude Code
// is not installed (scripts/ensure-agent-clis.sh).
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findAgentCli } from '../support/agent-clis.ts';
import { filesUnder, findCanary } from '../support/canary-scan.ts';
import { cli } from '../support/cli.ts';
import { startDirectorProcess } from '../support/director-process.ts';
import { bareRemote, filesOn, ISOLATED_GIT_ENV } from '../support/git-remote.ts';
import { type GitHubFake, startGitHubFake } from '../support/github-fake/github-fake.ts';
import { GITHUB_TOKEN, until } from '../support/github-director-fixture.ts';
import { taskText } from '../support/scripted-executor.ts';
import {
  type ScriptContext,
  type ScriptedTurn,
  startScriptedMessagesServer,
} from '../support/scripted-messages-server.ts';
import { startWorkerProcess } from '../support/worker-process.ts';

const claude = findAgentCli('claude');
const skip = 'skip' in claude ? claude.skip : '';
if (skip) console.warn(`agency director (github) with the real Claude Code skipped: ${skip}`);

const KEY = `sk-ant-api03-${randomBytes(16).toString('hex')}`;
const REVIEW = 'review the change; say LGTM if it is ready';

// "write <name>": Claude's Write tool puts <name> in its working directory, then it says so; the review says LGTM.
function script({ prompt, turn, cwd }: ScriptContext): ScriptedTurn {
  const text = taskText(prompt);
  const [verb, name = ''] = text.split(/\s+/);
  if (verb === 'write') {
    if (turn === 0) return { text: 'Writing it.', tool: 'Write', input: { file_path: join(cwd, name), content: name } };
    return { text: `Wrote ${name}.` };
  }
  if (text.startsWith(REVIEW)) return { text: 'LGTM' };
  return { text: `What is "${text}"?` };
}

const children: ChildProcess[] = [];
let fake: GitHubFake | undefined;
let server: Awaited<ReturnType<typeof startScriptedMessagesServer>> | undefined;
const roots: string[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await fake?.close();
  await server?.close();
  fake = undefined;
  server = undefined;
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

function directorConfig(apiUrl: string, remote: string, worker: string): string {
  return [
    'type: github',
    'name: gh',
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
    `  review: "${REVIEW}"`,
    'settings:',
    '  max_reviews: 1',
    '',
  ].join('\n');
}

// A data root with the Claude Code worker `w1` (its sandbox may write in the director's workspaces), its Anthropic
// key, the GitHub token, and a bare remote.
async function dataRoot(messagesUrl: string): Promise<{ root: string; remote: string; workspaces: string }> {
  const root = await mkdtemp(join(tmpdir(), 'agency-gh-claude-'));
  roots.push(root);
  const workspaces = join(root, 'directors', 'gh', 'workspaces');
  await mkdir(workspaces, { recursive: true });
  await mkdir(join(root, 'agents', 'w1'), { recursive: true });
  const worker = [
    'port: 9000',
    'executor: claude',
    'model: claude-sonnet-4-5',
    'timeout: 2m',
    'max_turns: 10',
    'sandbox:',
    `  read_write_paths: [${workspaces}]`,
    'credentials:',
    '  anthropic-key: ANTHROPIC_API_KEY',
    'env:',
    `  ANTHROPIC_BASE_URL: ${messagesUrl}`,
    '  CLAUDE_CODE_MAX_RETRIES: "0"',
    '',
  ].join('\n');
  await writeFile(join(root, 'agents', 'w1', 'config.yaml'), worker);
  await mkdir(join(root, 'credentials'), { recursive: true, mode: 0o700 });
  for (const [file, value] of [
    ['github-token', GITHUB_TOKEN],
    ['anthropic-key', KEY],
  ] as const) {
    await writeFile(join(root, 'credentials', file), `${value}\n`);
    await chmod(join(root, 'credentials', file), 0o600);
  }
  return { root, remote: await bareRemote(root), workspaces };
}

type Task = { session_id: string; workdir: string; turns: number; log: Array<{ message: string }> };

describe.skipIf(skip !== '')(
  `agency director (github) with the real Claude Code${skip ? ` (skipped: ${skip})` : ''}`,
  () => {
    it('writes the file in the clone, reviews it in the same session, pushes it and opens one pull request', async () => {
      server = await startScriptedMessagesServer(script);
      const { root, remote, workspaces } = await dataRoot(server.url);
      fake = await startGitHubFake({ token: GITHUB_TOKEN, remote });
      const bin = 'bin' in claude ? claude.bin : '';
      const worker = await startWorkerProcess('w1', root, { scripted: false, env: { CLAUDE_BIN: bin } });
      children.push(worker.child);
      await writeFile(join(root, 'directors', 'gh', 'config.yaml'), directorConfig(fake.url, remote, worker.url));

      const ana = fake.human('ana');
      const number = ana.openIssue('[gh] Add a widget', 'It goes in issue-N.txt');
      const director = await startDirectorProcess(root, 'gh', ISOLATED_GIT_ENV);
      children.push(director.child);
      const store = fake.store;
      const pull = await until(() => store.issues.find((issue) => issue.pull), 'the pull request', 60_000);
      expect(store.reactionsOn({ issue: number }).map((r) => [r.user, r.content])).toEqual([['agency-bot', 'eyes']]);
      const branch = `agency/issue-${number}`;
      expect(pull.pull).toMatchObject({ head: branch, base: 'main' });
      // Only the file Claude wrote: nothing of Claude Code's own (its HOME is the worker's, not the clone).
      expect(filesOn(remote, branch)).toEqual(['README.md', `issue-${number}.txt`]);
      const comments = () => store.comments.filter((c) => c.issue_number === number).map((c) => c.body);
      await until(() => comments().length === 1, 'the comment on the pull request');
      expect(comments()[0]).toMatch(new RegExp(`^Opened #${pull.number} from \`${branch}\`. The review said LGTM.`));

      // The review turn resumed the work turn's session: its request carries the work turn's prompt, tool use and answer.
      const review = server.conversation().find((request) => JSON.stringify(request.body).includes(REVIEW));
      const history = JSON.stringify((review?.body as { messages: unknown[] }).messages);
      for (const earlier of [`write issue-${number}.txt`, '"name":"Write"', `Wrote issue-${number}.txt.`])
        expect(history).toContain(earlier);
      type Entry = { state: string; task: { task_id: string } };
      const entry = await until(async () => {
        const body = (await (await fetch(`${director.url}/history/issue-${number}`)).json()) as Entry;
        return body.task ? body : undefined;
      }, 'the history entry');
      const task = await worker.json<Task>(`/history/${entry.task.task_id}`);
      expect(task).toMatchObject({ workdir: join(workspaces, `issue-${number}`), turns: 2 });
      expect(task.log.map((line) => line.message)).toContain(`Claude Code resumes session ${task.session_id}`);

      ana.react({ issue: pull.number }, '+1');
      await until(() => comments().length === 2, 'done');
      expect(comments()[1]).toMatch(new RegExp(`^Done: #${pull.number} approved by @ana. It is yours to merge.`));
      expect(store.issues.filter((issue) => issue.pull)).toHaveLength(1);
      expect((await worker.json<{ total: number }>('/history')).total).toBe(1);
      await until(async () => {
        const body = (await (await fetch(`${director.url}/history/issue-${number}`)).json()) as Entry;
        return body.state === 'completed';
      }, 'the completed history entry');
      await until(
        async () => (await worker.json(`/task/${entry.task.task_id}`)).state === 'completed',
        'the ended task',
      );
      const shutdown = await cli(['shutdown', '--directors', '--url', director.url, '--ports', '1-1']);
      expect(shutdown.code, shutdown.stderr).toBe(0);
      expect(await director.exited).toBe(0);
      expect(await worker.kill('SIGTERM')).toBe(0);

      // Neither the GitHub token nor the Anthropic key is in a file of the data root, a process's output, or (the token)
      // anything the model was sent.
      expect(new Set(server.requests.map((request) => request.apiKey))).toEqual(new Set([KEY]));
      expect(JSON.stringify(server.requests)).not.toContain(GITHUB_TOKEN.slice(4, 20));
      const files = filesUnder(root, ['credentials']);
      expect(files).toContainEqual(expect.stringMatching(/\/agents\/w1\/home\/\.claude\/projects\/.*\.jsonl$/));
      for (const secret of [GITHUB_TOKEN, KEY]) {
        expect(findCanary(files, secret, root)).toEqual([]);
        expect(director.output() + worker.output()).not.toContain(secret.slice(-16));
      }
      expect(fake.drift).toEqual([]);
    }, 90_000);
  },
);
