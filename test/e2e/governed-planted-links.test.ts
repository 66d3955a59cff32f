// A governed run whose artifacts/ holds what a sandboxed command can plant there: a link to a host file, a FIFO and
// a 3 GiB sparse file. Verify and the result must neither read them nor leak them, and must say what was refused.
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, symlink, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { FIXTURE_PLAN, fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

const HOST_FILE = '/etc/passwd';
const PLAN = {
  ...FIXTURE_PLAN,
  acceptance: [
    ...FIXTURE_PLAN.acceptance,
    {
      id: 'a2',
      criterion: 'leak.json names root',
      check: { type: 'contains', path: 'artifacts/leak.json', text: 'root' },
    },
    {
      id: 'a3',
      criterion: 'leak.json is JSON',
      check: { type: 'json_validate', path: 'artifacts/leak.json', schema: {} },
    },
    { id: 'a4', criterion: 'ghost.json exists', check: { type: 'file_exists', path: 'artifacts/ghost.json' } },
  ],
};

describe('a governed run with links planted in artifacts/', () => {
  it('verifies and delivers without reading them, and journals each refusal once', async () => {
    const root = await makeTaskFolder();
    const artifacts = join(root, 'progress', 'artifacts');
    await mkdir(artifacts, { recursive: true });
    await symlink(HOST_FILE, join(artifacts, 'leak.json'));
    await symlink('/etc/no-such-file', join(artifacts, 'ghost.json'));
    execFileSync('mkfifo', [join(artifacts, 'pipe')]);
    await writeFile(join(artifacts, 'huge.bin'), '');
    await truncate(join(artifacts, 'huge.bin'), 3 * 2 ** 30);
    const asks: string[] = [];
    const model = phaseModel({
      plan: () => JSON.stringify(PLAN),
      verify: (options) => {
        asks.push(JSON.stringify(options.prompt));
        const ids = ['a1', 'a2', 'a3', 'a4'];
        return JSON.stringify({ criteria: ids.map((id) => ({ id, passed: true, evidence: 'looks fine' })) });
      },
    });
    const runner = createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    const result = await runner.doTask(root, {}, { view: 'full' });

    expect(result.finishReason).toBe('verify.failed');
    expect(result.deliverables?.map((file) => file.path)).toEqual(['progress/artifacts/summary.md']);
    const refusals = [
      'progress/artifacts/ghost.json is not delivered: it is a symlink (its target is not read)',
      `progress/artifacts/huge.bin is not delivered: it is ${3 * 2 ** 30} bytes, over the ${2 ** 30}-byte limit for one deliverable`,
      'progress/artifacts/leak.json is not delivered: it is a symlink (its target is not read)',
      'progress/artifacts/pipe is not delivered: it is a FIFO',
    ];
    expect(result.warnings).toEqual(refusals);
    const { frames } = await readJournal(join(root, 'progress', 'events.ndjson'));
    expect(frames.filter((frame) => frame.type === 'warning').map((frame) => frame.message)).toEqual(refusals);

    const report = JSON.parse(await readFile(join(root, 'progress', 'verify', '0001-report.json'), 'utf8')) as {
      criteria: Array<{ id: string; passed: boolean; evidence: string }>;
    };
    const evidence = Object.fromEntries(report.criteria.map((criterion) => [criterion.id, criterion]));
    expect(evidence['a1']).toMatchObject({ passed: true });
    for (const id of ['a2', 'a3', 'a4']) {
      expect(evidence[id]).toMatchObject({ passed: false });
      expect(evidence[id]?.evidence).toContain('leads outside progress/');
    }
    // Nothing of the host file reaches the report, the journal or the model's Verify prompt.
    const host = (await readFile(HOST_FILE, 'utf8')).split('\n')[0]!.slice(0, 12);
    const journal = await readFile(join(root, 'progress', 'events.ndjson'), 'utf8');
    for (const text of [JSON.stringify(report), journal, ...asks]) expect(text).not.toContain(host);
    expect(asks.join('\n')).toContain('Not delivered:');
  }, 60_000);
});
