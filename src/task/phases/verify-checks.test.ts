import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type FileCheck, runFileCheck } from './verify-checks.ts';

const SECRET = 'root:x:0:0:HOST-SECRET-7f3a:/root:/bin/bash\n';
let top: string;
let progress: string;

beforeEach(() => {
  top = realpathSync(mkdtempSync(join(tmpdir(), 'agency-verify-checks-')));
  progress = join(top, 'progress');
  mkdirSync(join(progress, 'artifacts'), { recursive: true });
  mkdirSync(join(top, 'outside', 'dir'), { recursive: true });
  writeFileSync(join(top, 'outside', 'secret.txt'), SECRET);
  writeFileSync(join(progress, 'state.json'), '{"phase":"act","status":"running"}\n');
  writeFileSync(join(progress, 'artifacts', 'good.json'), '{"ok":true}\n');
  writeFileSync(join(progress, 'artifacts', 'report.md'), '# Report\nAll done\n');
});
afterEach(() => rmSync(top, { recursive: true, force: true }));

const plant = (name: string, target: string) => symlinkSync(target, join(progress, 'artifacts', name));
const checksOn = (path: string): FileCheck[] => [
  { type: 'file_exists', path },
  { type: 'contains', path, text: 'root' },
  { type: 'contains', path, text: 'no such text' },
  { type: 'json_validate', path, schema: { type: 'object' } },
];

describe('Verify file checks on links the sandbox planted', () => {
  it('fail a link out of progress/ the same way whether its target exists or not, and never read it', async () => {
    // Pairs that differ only in whether the outside target exists: any difference in evidence is an oracle.
    const pairs: Array<[string, string, string, string]> = [
      ['abs-hit.json', join(top, 'outside', 'secret.txt'), 'abs-miss.json', join(top, 'outside', 'missing.txt')],
      ['rel-hit.json', '../../outside/secret.txt', 'rel-miss.json', '../../outside/missing.txt'],
      ['etc-hit.json', '/etc/passwd', 'etc-miss.json', '/etc/no-such-file-here'],
      [
        'via-dir.md',
        '../../outside/dir/../../progress/artifacts/report.md',
        'via-nodir.md',
        '../../outside/nodir/../../progress/artifacts/report.md',
      ],
    ];
    for (const [hit, hitTarget, miss, missTarget] of pairs) {
      plant(hit, hitTarget);
      plant(miss, missTarget);
      const checks = checksOn(`artifacts/${hit}`);
      for (const check of checks) {
        const onHit = await runFileCheck(progress, check);
        const onMiss = await runFileCheck(progress, { ...check, path: `artifacts/${miss}` });
        expect(onHit).toMatchObject({ passed: false, artifacts: [] });
        expect(onHit.evidence).toContain('leads outside progress/');
        expect(onHit.evidence).not.toMatch(/HOST-SECRET|root:x/);
        expect(onMiss.evidence.replace(miss, hit)).toBe(onHit.evidence);
      }
    }
  });

  it('read a link to a control file inside progress/, and name the file they read', async () => {
    plant('s.json', '../state.json');
    plant('p', '..');
    for (const path of ['artifacts/s.json', 'progress/artifacts/p/state.json']) {
      const exists = await runFileCheck(progress, { type: 'file_exists', path });
      expect(exists.passed).toBe(true);
      expect(exists.evidence).toMatch(/\(a link to progress\/state\.json\) exists$/);
      const contains = await runFileCheck(progress, { type: 'contains', path, text: 'running' });
      expect(contains.passed).toBe(true);
      expect(contains.evidence).toContain('(a link to progress/state.json) contains "running"');
      const valid = await runFileCheck(progress, { type: 'json_validate', path, schema: { required: ['phase'] } });
      expect(valid.passed).toBe(true);
      expect(valid.evidence).toContain('(a link to progress/state.json) matches the schema');
    }
  });

  it('fail on a FIFO without hanging, and on a file over the size limit', async () => {
    execFileSync('mkfifo', [join(progress, 'artifacts', 'pipe.json')]);
    // contains first: a plain readFile of a FIFO with no writer never returns.
    for (const check of checksOn('artifacts/pipe.json').reverse()) {
      const result = await runFileCheck(progress, check);
      expect(result.passed).toBe(false);
      expect(result.evidence).toContain('is not a regular file');
    }
    const big = await runFileCheck(progress, { type: 'contains', path: 'artifacts/report.md', text: 'All' }, 8);
    expect(big).toMatchObject({ passed: false, artifacts: [] });
    expect(big.evidence).toContain('is larger than the 8-byte limit');
  }, 10_000);
});

describe('Verify file checks on regular files', () => {
  it('check existence, text and JSON Schema inside progress/', async () => {
    expect(await runFileCheck(progress, { type: 'file_exists', path: 'artifacts/good.json' })).toEqual({
      passed: true,
      evidence: 'progress/artifacts/good.json exists',
      artifacts: ['progress/artifacts/good.json'],
    });
    expect(await runFileCheck(progress, { type: 'file_exists', path: 'progress/artifacts/none.md' })).toEqual({
      passed: false,
      evidence: 'progress/artifacts/none.md does not exist',
      artifacts: [],
    });
    const contains = await runFileCheck(progress, { type: 'contains', path: 'artifacts/report.md', text: 'All done' });
    expect(contains).toMatchObject({ passed: true, evidence: 'progress/artifacts/report.md contains "All done"' });
    const lacks = await runFileCheck(progress, { type: 'contains', path: 'artifacts/report.md', text: 'nope' });
    expect(lacks).toMatchObject({ passed: false, evidence: 'progress/artifacts/report.md does not contain "nope"' });
    const schema = { type: 'object', required: ['ok', 'count'] };
    const invalid = await runFileCheck(progress, { type: 'json_validate', path: 'artifacts/good.json', schema });
    expect(invalid).toMatchObject({
      passed: false,
      evidence: "progress/artifacts/good.json: (root) must have required property 'count'",
    });
    const notJson = await runFileCheck(progress, { type: 'json_validate', path: 'artifacts/report.md', schema });
    expect(notJson.passed).toBe(false);
    expect(notJson.evidence).toContain('progress/artifacts/report.md could not be validated');
  });

  it('validate against a catastrophic pattern in linear time', async () => {
    writeFileSync(join(progress, 'artifacts', 'v.json'), JSON.stringify(`${'a'.repeat(27)}!`));
    const started = performance.now();
    const schema = { type: 'string', pattern: '^(a|a)*$' };
    const result = await runFileCheck(progress, { type: 'json_validate', path: 'artifacts/v.json', schema });
    expect(result).toMatchObject({
      passed: false,
      evidence: 'progress/artifacts/v.json: (root) must match pattern "^(a|a)*$"',
    });
    expect(performance.now() - started).toBeLessThan(1000); // backtracking took 8 s on 27 characters
  });

  it('refuse paths that leave progress/ and directories', async () => {
    for (const path of ['../outside/secret.txt', 'progress/../../outside/secret.txt', '/etc/passwd']) {
      const result = await runFileCheck(progress, { type: 'contains', path, text: 'root' });
      expect(result.passed).toBe(false);
      expect(result.evidence).not.toContain('HOST-SECRET');
    }
    const dir = await runFileCheck(progress, { type: 'file_exists', path: 'artifacts' });
    expect(dir.passed).toBe(false);
  });
});
