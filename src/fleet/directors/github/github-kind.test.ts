// The GitHub director through the director host: its token loaded when it runs (0600, or the director stops naming
// the file), a history entry per issue following its phases, and each turn under its clone's workspace lock.
import { readdirSync } from 'node:fs';
import { chmod, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type GitHubDirectorFixture,
  githubDirectorFixture,
  until,
} from '../../../../test/support/github-director-fixture.ts';
import { issueScript } from '../../../../test/support/scripted-dispatch.ts';
import { directorEntrySchema } from '../../api/director-schemas.ts';

let fixture: GitHubDirectorFixture;

afterEach(async () => {
  await fixture.close();
});

const token = () => join(fixture.root.credentials, 'github-token');

describe('the GitHub kind of director', () => {
  it('stops with an error naming the token file and the fix when it is readable by others or missing', async () => {
    fixture = await githubDirectorFixture();
    await chmod(token(), 0o644);
    const failed = await (await fixture.open()).done;
    expect(failed?.message).toMatch(/directors\/gh\/config.yaml: credentials: .*github-token.*chmod 600/s);
    await rm(token());
    expect((await (await fixture.open()).done)?.message).toMatch(/credentials: .*github-token/s);
    expect(fixture.fake.store.issues).toEqual([]);
  });

  it('keeps one history entry per issue, a line per phase, and holds the clone’s lock during each turn', async () => {
    const locksDuringTurns: number[] = [];
    fixture = await githubDirectorFixture({
      script: (turn) => {
        locksDuringTurns.push(readdirSync(join(fixture.root.root, 'locks')).filter((f) => f.endsWith('.lock')).length);
        return issueScript(turn);
      },
    });
    const file = join(fixture.dir, 'config.yaml');
    const config = (await readFile(file, 'utf8')).replace('max_reviews: 2', 'max_reviews: 1');
    await writeFile(file, config.replace('  initial_backoff', '  require_approval: false\n  initial_backoff'));
    const number = fixture.fake.human('ana').openIssue('[gh] Keep a history', 'body');
    const run = await fixture.open();
    const entry = async () => {
      const answer = await fetch(`${run.director.url}/history/issue-${number}`);
      return answer.ok ? directorEntrySchema.parse(await answer.json()) : undefined;
    };
    const done = await until(async () => ((await entry())?.state === 'completed' ? entry() : undefined), 'done');
    expect(done).toMatchObject({
      kind: 'issue',
      title: `#${number} [gh] Keep a history`,
      finished_at: expect.any(String),
    });
    expect(done.details).toMatchObject({ number, phase: 'done', pull: expect.any(Number) });
    expect(done.log.map((line) => line.message)).toEqual([
      'phase: taken',
      'phase: working',
      'phase: publishing',
      'phase: done',
    ]);
    expect(done.task?.task_id).toMatch(/^task-/);
    expect(locksDuringTurns).toEqual([1, 1]);
    expect(readdirSync(join(fixture.root.root, 'locks')).filter((f) => f.endsWith('.lock'))).toEqual([]);
    const status = (await (await fetch(`${run.director.url}/status`)).json()) as { config: Record<string, unknown> };
    expect(status.config).toMatchObject({ director_type: 'github', repo: 'octo/widgets' });
  });
});
