// The GitHub director when GitHub or a worker fails: a 500 or a malformed answer is retried with backoff and
// reported once, a rate limit waits for GitHub's reset time, a 422 stops that issue only, a lost worker is
// re-dispatched or reported per config; the director keeps running throughout.
import { afterEach, describe, expect, it } from 'vitest';
import {
  type GitHubDirectorFixture,
  githubDirectorFixture,
  until,
} from '../../../../test/support/github-director-fixture.ts';
import { issueScript } from '../../../../test/support/scripted-dispatch.ts';

let fixture: GitHubDirectorFixture;

afterEach(async () => {
  expect(fixture.fake.drift).toEqual([]);
  await fixture.close();
});

const issueState = async (number: number) => (await fixture.state().catch(() => undefined))?.issues[String(number)];
const bodies = (number: number) =>
  fixture.fake.store.comments.filter((c) => c.issue_number === number).map((c) => c.body.split('\n')[0]);

describe('the GitHub director on failures', () => {
  it('retries GitHub 500s and malformed answers with backoff, reporting the failure once', async () => {
    fixture = await githubDirectorFixture();
    fixture.fake.inject({ operation: 'users/get-authenticated', kind: 'server_error' });
    fixture.fake.inject({ operation: 'pulls/create', kind: 'server_error', times: 2 });
    fixture.fake.inject({ operation: 'reactions/list-for-issue', kind: 'malformed' });
    const number = fixture.fake.human('ana').openIssue('[gh] Flaky GitHub');
    const run = await fixture.open();
    await until(async () => (await issueState(number))?.phase === 'awaiting_approval', 'the pull request');
    expect(fixture.fake.count('pulls/create', 500)).toBe(2);
    expect(fixture.fake.count('pulls/create')).toBe(3);
    expect(bodies(number)).toEqual([
      expect.stringMatching(
        /^⚠️ github_retryable: GitHub GET \/repos\/octo\/widgets\/issues\/\d+\/reactions: the answer is not/,
      ),
      expect.stringMatching(/^⚠️ github_retryable: GitHub POST \/repos\/octo\/widgets\/pulls: 500 /),
      expect.stringMatching(/^Opened #/),
    ]);
    expect((await issueState(number))!.failure).toBeNull();
    expect(run.lines.filter((line) => line.startsWith('warn'))).toEqual([
      expect.stringContaining('GitHub GET /user: 500'),
      expect.stringContaining('taken failed, retrying (attempt 1'),
      expect.stringContaining('publishing failed, retrying (attempt 1'),
      expect.stringContaining('publishing failed, retrying (attempt 2'),
    ]);
  });

  it('goes on when the status issue cannot be updated, and updates it once GitHub answers again', async () => {
    fixture = await githubDirectorFixture();
    fixture.fake.inject({ operation: 'issues/update', kind: 'server_error', times: 3 });
    const number = fixture.fake.human('ana').openIssue('[gh] Status down');
    const run = await fixture.open();
    await until(async () => (await issueState(number))?.phase === 'awaiting_approval', 'the pull request');
    const status = (await fixture.state()).status_issue!;
    await until(() => fixture.fake.store.issue(status)!.body?.includes(`#${number}: awaiting approval`), 'the status');
    expect(fixture.fake.count('issues/update', 500)).toBe(3);
    expect(run.lines).toContainEqual(
      expect.stringMatching(/^warn the status issue could not be updated: GitHub PATCH/),
    );
  });

  it('waits for the reset time of a rate limit before asking GitHub again', async () => {
    fixture = await githubDirectorFixture();
    const run = await fixture.open();
    await until(() => fixture.fake.count('issues/list-for-repo', 200) > 0, 'the status issue');
    fixture.fake.inject({ operation: 'issues/list-for-repo', kind: 'rate_limit', resetInSeconds: 2 });
    const number = fixture.fake.human('ana').openIssue('[gh] Rate limited');
    await until(async () => (await fixture.state().catch(() => undefined))?.paused_until, 'the pause');
    const paused = (await fixture.state()).paused_until!;
    expect(paused).toBeGreaterThan(Date.now());
    await until(async () => (await issueState(number))?.phase === 'awaiting_approval', 'the pull request');
    expect(
      fixture.fake.store.reactionsOn({ issue: number })[0]!.created_at >=
        new Date(paused - 1000).toISOString().slice(0, 19),
    ).toBe(true);
    expect(run.lines).toContainEqual(expect.stringMatching(/rate limited \(403 API rate limit exceeded/));
  });

  it('stops an issue GitHub refuses (422) with one comment, and goes on with the others', async () => {
    fixture = await githubDirectorFixture();
    fixture.fake.inject({ operation: 'pulls/create', kind: 'validation' });
    const refused = fixture.fake.human('ana').openIssue('[gh] Refused');
    const run = await fixture.open();
    await until(async () => (await issueState(refused))?.phase === 'failed', 'the failure');
    const fine = fixture.fake.human('ana').openIssue('[gh] Fine');
    await until(async () => (await issueState(fine))?.phase === 'awaiting_approval', 'the other issue');
    expect(bodies(refused)).toEqual([
      expect.stringMatching(/^⚠️ github_fatal: GitHub POST .*pulls: 422 Validation Failed/),
    ]);
    expect(fixture.fake.count('pulls/create')).toBe(2);
    expect(run.lines).toContainEqual(expect.stringContaining('publishing failed, stopped'));
  });

  it('stops an issue whose work changed nothing, without a pull request', async () => {
    fixture = await githubDirectorFixture({ script: () => ({ output: 'Nothing to do. LGTM' }) });
    const number = fixture.fake.human('ana').openIssue('[gh] Nothing');
    await fixture.open();
    await until(async () => (await issueState(number))?.phase === 'failed', 'the failure');
    expect(bodies(number)).toEqual([
      expect.stringMatching(
        /^⚠️ worker_task_failed: issue #\d+: the work left nothing to commit on agency\/issue-\d+$/,
      ),
    ]);
    expect(fixture.fake.count('pulls/create')).toBe(0);
  });

  it('dispatches a turn again when its worker is lost, with on_worker_lost: requeue', async () => {
    let lost = false;
    fixture = await githubDirectorFixture({
      script: (turn) => {
        if (!lost && turn.turn === 2) return ((lost = true), { lost: true });
        return issueScript(turn);
      },
    });
    const number = fixture.fake.human('ana').openIssue('[gh] Lose a worker');
    const run = await fixture.open();
    await until(async () => (await issueState(number))?.phase === 'awaiting_approval', 'the pull request');
    const tasks = fixture.dispatch.tasks();
    expect(tasks).toHaveLength(2);
    expect(tasks.map((t) => t.prompts.length).sort()).toEqual([1, 2]);
    expect(run.lines).toContainEqual(expect.stringContaining('worker lost; dispatching the turn again'));
    expect(bodies(number)).toEqual([expect.stringMatching(/^Opened #/)]);
  });

  it('reports a lost worker and stops the issue with on_worker_lost: report; a failed task likewise', async () => {
    fixture = await githubDirectorFixture({
      extra: '',
      script: ({ prompt }) => (prompt.includes('Lost') ? { lost: true } : { fail: 'the executor crashed' }),
    });
    const { readFile, writeFile } = await import('node:fs/promises');
    const file = `${fixture.dir}/config.yaml`;
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace('settings:\n', 'settings:\n  on_worker_lost: report\n'),
    );
    const lost = fixture.fake.human('ana').openIssue('[gh] Lost');
    const failed = fixture.fake.human('ana').openIssue('[gh] Failed');
    await fixture.open();
    await until(async () => (await issueState(lost))?.phase === 'failed', 'the lost issue');
    await until(async () => (await issueState(failed))?.phase === 'failed', 'the failed issue');
    expect(bodies(lost)).toEqual([
      expect.stringMatching(/^⚠️ worker_task_failed: issue #\d+: the worker's task worker_lost/),
    ]);
    expect(bodies(failed)).toEqual([
      expect.stringMatching(/^⚠️ worker_task_failed: .*executor_error: the executor crashed/),
    ]);
  });
});
