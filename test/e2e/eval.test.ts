import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/core/sha256.ts';
import { type EvalReport, evalReportSchema } from '../../src/eval/report.ts';
import { checkSandbox, createBwrapSandbox } from '../../src/sandbox/index.ts';
import { agency, cli } from '../support/cli.ts';

const repo = join(import.meta.dirname, '../..');
const shipped = join(repo, 'evals/examples');
const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true }))));

const sandbox = await checkSandbox(createBwrapSandbox());
if (!sandbox.ok) console.warn(`The shipped eval suite's test is skipped: ${sandbox.error.message}`);

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agency-eval-'));
  scratch.push(dir);
  return dir;
}

// No operator config of the machine's (~/.config/agency) may change the tools a replay was recorded with.
async function env(): Promise<Record<string, string>> {
  const root = await tempDir();
  return { AGENCY_ROOT: root, XDG_CONFIG_HOME: join(root, 'config'), AGENCY_CONFIG: '' };
}

async function digestTree(dir: string): Promise<string> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
  const parts = await Promise.all(files.sort().map(async (file) => `${file}:${sha256Hex(await readFile(file))}`));
  return sha256Hex(parts.join('\n'));
}

// A suite of copies of shipped cases (those that need no sandbox), to change without touching the shipped one.
async function suiteOf(...names: string[]): Promise<string> {
  const suite = join(await tempDir(), 'suite');
  for (const name of names) await cp(join(shipped, name), join(suite, name), { recursive: true });
  return suite;
}

async function readReport(file: string): Promise<EvalReport> {
  return evalReportSchema.parse(JSON.parse(await readFile(file, 'utf8')));
}

describe('agency eval on the shipped suite', () => {
  it.skipIf(!sandbox.ok)(
    'replays every case, prints the table, writes JSON and HTML, and leaves the suite as it was',
    async () => {
      const out = await tempDir();
      const before = await digestTree(shipped);
      const run = await cli(
        ['eval', shipped, '--json', join(out, 'r.json'), '--html', join(out, 'r.html')],
        await env(),
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toMatch(
        /^case +result +finish +tokens in\/out +cost +steps +calls +time +approvals +overhead$/m,
      );
      for (const name of ['fix-slugify', 'incident-report', 'release-notes'])
        expect(run.stdout).toMatch(
          new RegExp(`^${name} +passed +completed +\\d+/\\d+ +\\$0\\.\\d{4} +\\d+ +\\d+ +[\\d.]+ s +1 +[\\d.]+%$`, 'm'),
        );
      expect(run.stdout).toMatch(/^total +3\/3 \(100\.0%\)/m);
      expect(run.stdout).toMatch(
        /^Framework overhead: [\d.]+% of \d+ transcript tokens \(\d+ added by agency; goal ≤ 5\.0%/m,
      );

      const report = await readReport(join(out, 'r.json'));
      expect(report.totals).toMatchObject({ cases: 3, passed: 3, failed: 0, skipped: 0, successRate: 1 });
      expect(report.interrupted).toBe(false);
      for (const item of report.cases) {
        expect(item.metrics.inputTokens).toBeGreaterThan(1000);
        expect(item.metrics.modelCalls).toBeGreaterThanOrEqual(6);
        expect(item.overhead.parts.framework).toBeGreaterThan(0);
        expect(item.overhead.transcriptTokens).toBe(item.metrics.totalTokens);
        expect(item.checks.every((check) => check.passed)).toBe(true);
      }
      const html = await readFile(join(out, 'r.html'), 'utf8');
      expect(html).toContain('<svg');
      expect(html).toContain('incident-report');
      expect(html).not.toMatch(/<script|https?:\/\/(?!json-schema)/i);
      expect(await digestTree(shipped)).toBe(before);
    },
    120_000,
  );
});

describe('agency eval --compare', () => {
  it('exits 0 against itself and 8 on a regression, naming it; a damaged report to compare with is refused', async () => {
    const suite = await suiteOf('release-notes', 'incident-report');
    const out = await tempDir();
    const first = await cli(['eval', suite, '--json', join(out, 'first.json')], await env());
    expect(first.code).toBe(0);
    const same = await cli(['eval', suite, '--compare', join(out, 'first.json')], await env());
    expect(same.stdout).toContain(`No regressions against ${join(out, 'first.json')}.`);
    expect(same.code).toBe(0);

    // As if the earlier run had been cheaper: this one spent twice the tokens.
    const earlier = await readReport(join(out, 'first.json'));
    const cheaper = earlier.cases.map((item) =>
      item.name === 'release-notes'
        ? { ...item, metrics: { ...item.metrics, totalTokens: item.metrics.totalTokens / 2 } }
        : item,
    );
    await writeFile(join(out, 'cheaper.json'), JSON.stringify({ ...earlier, cases: cheaper }));
    const worse = await cli(
      ['eval', suite, '--compare', join(out, 'cheaper.json'), '--html', join(out, 'c.html')],
      await env(),
    );
    expect(worse.stdout).toMatch(
      /1 regression\(s\) against .*cheaper\.json:\n {2}release-notes: tokens \d+ → \d+ tokens \(\+100%\)/,
    );
    expect(worse.code).toBe(8);
    expect(await readFile(join(out, 'c.html'), 'utf8')).toContain('Regressions');

    await writeFile(join(out, 'bad.json'), JSON.stringify({ ...earlier, totals: { ...earlier.totals, passed: -1 } }));
    const bad = await cli(['eval', suite, '--compare', join(out, 'bad.json')], await env());
    expect(bad.stderr).toContain(`${join(out, 'bad.json')}: "totals.passed"`);
    expect(bad.code).toBe(2);
  }, 120_000);
});

describe('agency eval on malformed suites', () => {
  it('refuses a case without expect.yaml, naming the file', async () => {
    const suite = await suiteOf('release-notes');
    await rm(join(suite, 'release-notes/expect.yaml'));
    const run = await cli(['eval', suite], await env());
    expect(run.stderr).toContain(`${join(suite, 'release-notes/expect.yaml')} is missing`);
    expect(run.code).toBe(2);
  });

  it('refuses an unknown or mistyped field, naming the file and the field', async () => {
    const suite = await suiteOf('release-notes');
    await writeFile(
      join(suite, 'release-notes/expect.yaml'),
      'budgets:\n  max_tokenz: 10\nchecks:\n  - { type: contains, path: a.md }\n',
    );
    const run = await cli(['eval', suite], await env());
    expect(run.stderr).toContain(join(suite, 'release-notes/expect.yaml'));
    expect(run.stderr).toContain('"budgets"');
    expect(run.stderr).toContain('max_tokenz');
    expect(run.stderr).toContain('"checks.0.text"');
    expect(run.code).toBe(2);
  });

  it('refuses a task root with a link that leads outside the suite, before running anything', async () => {
    const suite = await suiteOf('release-notes');
    const secret = join(await tempDir(), 'secret.txt');
    await writeFile(secret, 'not for the model');
    await symlink(secret, join(suite, 'release-notes/task/notes.txt'));
    const run = await cli(['eval', suite], await env());
    expect(run.stderr).toContain(
      `${join(suite, 'release-notes/task/notes.txt')} is a link that leads outside the eval suite`,
    );
    expect(run.code).toBe(2);
  });

  it('fails a case whose cassette does not match with a replay error naming the case, and escapes it in HTML', async () => {
    const suite = await suiteOf('release-notes');
    await writeFile(join(suite, 'release-notes/task/CHANGELOG.md'), '# Changelog\n\n## 2.3.0\n\n- changed\n');
    // A hostile case name: it must reach the HTML report as text, never as markup.
    const hostile = 'x<img src=x onerror=alert(1)>';
    await mkdir(join(suite, hostile, 'task'), { recursive: true });
    await writeFile(join(suite, hostile, 'task/brief.md'), '# </pre><script>alert(1)</script>\n');
    await writeFile(join(suite, hostile, 'expect.yaml'), '');
    const out = await tempDir();
    const run = await cli(['eval', suite, '--html', join(out, 'r.html'), '--json', join(out, 'r.json')], await env());
    expect(run.stdout).toMatch(
      /^✗ release-notes: Step 0001-gather failed: Cassette .*release-notes\/cassette\.jsonl line \d+: call #1 differs from the recording/m,
    );
    expect(run.stdout).toContain(`✗ ${hostile}: no cassette at ${join(suite, hostile, 'cassette.jsonl')}: record one`);
    expect(run.code).toBe(1);
    const report = await readReport(join(out, 'r.json'));
    expect(report.cases.map((item) => item.status)).toEqual(['failed', 'failed']);
    const html = await readFile(join(out, 'r.html'), 'utf8');
    expect(html).not.toMatch(/<script|<img/i);
    expect(html).toContain('x&#60;img src=x onerror=alert(1)&#62;');
  });

  it('needs --model to --record, and refuses a bad --model once, before any case runs', async () => {
    const suite = await suiteOf('release-notes');
    const run = await cli(['eval', suite, '--record'], await env());
    expect(run.stderr).toBe('agency: --record needs --model: the model whose answers to record\n');
    expect(run.code).toBe(2);
    const bad = await cli(['eval', suite, '--model', 'bogus:x'], await env());
    expect(bad.stderr).toMatch(/^agency: Model spec "bogus:x" is invalid/);
    expect(bad.stdout).toBe('');
    expect(bad.code).toBe(2);
  });
});

describe('agency eval with prompt versions', () => {
  it('runs every case with the pinned version of --prompt or the config, and a cassette names the version it holds', async () => {
    const suite = await suiteOf('release-notes');
    const pinned = await cli(['eval', suite, '--prompt', 'runner.gather@1'], await env());
    expect(pinned.stdout).toContain(
      'call #0 was recorded with prompt runner.gather@2, this run uses runner.gather@1. Pin the recorded version',
    );
    expect(pinned.code).toBe(1);
    // The same pin from the operator config's prompts key; a --prompt of the same id wins over it.
    const config = join(await tempDir(), 'config.json');
    await writeFile(config, JSON.stringify({ prompts: { pins: ['runner.gather@1'] } }));
    const fromConfig = await cli(['eval', suite, '--config', config], await env());
    expect(fromConfig.stdout).toContain('this run uses runner.gather@1');
    expect(fromConfig.code).toBe(1);
    const over = await cli(['eval', suite, '--config', config, '--prompt', 'runner.gather@2'], await env());
    expect(over.stdout).toContain('1/1 (100.0%)');
    expect(over.code).toBe(0);
  }, 60_000);

  it('refuses a --prompts that is not a folder, or a bad pin, before any case runs', async () => {
    const suite = await suiteOf('release-notes');
    const missing = join(await tempDir(), 'nope');
    const run = await cli(['eval', suite, '--prompts', missing], await env());
    expect(run.stderr).toContain(`--prompts: ${missing} is not a folder`);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(2);
    const pin = await cli(['eval', suite, '--prompt', 'runner.plan'], await env());
    expect(pin.stderr).toContain('write it as <id>@<version>');
    expect(pin.code).toBe(2);
  });
});

describe('agency eval interrupted', () => {
  it('stops at Ctrl-C: the running case is cancelled, the rest skipped, and a partial report is written', async () => {
    // A model that takes every request and never answers, so the first case is mid-call when Ctrl-C comes.
    let received!: () => void;
    const requested = new Promise<void>((resolve) => (received = resolve));
    const server = createServer(() => received());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    try {
      const suite = await suiteOf('incident-report', 'release-notes');
      const out = await tempDir();
      const child = spawn(
        process.execPath,
        [
          agency,
          'eval',
          suite,
          '--concurrency',
          '1',
          '--model',
          `openai-compatible:http://127.0.0.1:${port}/v1#m`,
          '--json',
          join(out, 'r.json'),
          '--html',
          join(out, 'r.html'),
        ],
        { env: { ...process.env, ...(await env()) } },
      );
      let stdout = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      await requested;
      child.kill('SIGINT');
      expect(await exited).toBe(3);
      expect(stdout).toContain('Stopping the eval');
      expect(stdout).toContain(`Wrote ${join(out, 'r.json')} (partial: the eval was interrupted)`);
      const report = await readReport(join(out, 'r.json'));
      expect(report.interrupted).toBe(true);
      expect(report.cases.map((item) => [item.name, item.status, item.finishReason])).toEqual([
        ['incident-report', 'failed', 'cancelled'],
        ['release-notes', 'skipped', null],
      ]);
      expect(await readFile(join(out, 'r.html'), 'utf8')).toContain('Interrupted: this report is partial.');
    } finally {
      server.closeAllConnections();
      server.close();
    }
  }, 60_000);
});
