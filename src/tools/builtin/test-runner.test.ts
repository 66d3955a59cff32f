import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkSandbox, createBwrapSandbox } from '../../sandbox/index.ts';
import { createToolRegistry } from '../tool-registry.ts';
import { createTestRunnerTool, type TestRunnerOutput, type TestRunnerToolOptions } from './test-runner.ts';

const bwrap = createBwrapSandbox();
const status = await checkSandbox(bwrap);
const skipReason = status.ok ? '' : ` (skipped: ${status.error.message})`;

const node = realpathSync(process.execPath);
let base: string;
let workdir: string;

const passing = `import test from 'node:test';
import assert from 'node:assert';
test('adds', () => assert.equal(1 + 1, 2));
test('concatenates', () => assert.equal('a' + 'b', 'ab'));
`;
const failing = `import test from 'node:test';
import assert from 'node:assert';
test('adds', () => assert.equal(1 + 1, 2));
test('is wrong', () => assert.equal(1 + 1, 3));
`;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), 'agency-tests-')));
  workdir = join(base, 'work');
  mkdirSync(workdir);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function run(input: unknown, options: Partial<TestRunnerToolOptions> = {}) {
  const tool = createTestRunnerTool({
    sandbox: bwrap,
    workdir,
    // Node may live outside /usr (here under /opt); the harness binds the toolchain read-only.
    command: [node, '--test', '--test-reporter=spec'],
    readOnlyPaths: [node],
    timeoutMs: 15_000,
    ...options,
  });
  return createToolRegistry([tool]).run({ toolCallId: 'c1', toolName: 'test_runner', input });
}

describe.skipIf(!status.ok)(`test_runner under bwrap${skipReason}`, () => {
  it('passes a passing suite and summarises it', async () => {
    writeFileSync(join(workdir, 'math.test.mjs'), passing);
    const outcome = await run({});
    expect(outcome.output).toMatchObject({
      passed: true,
      exit_code: 0,
      summary: '2 passed, 0 failed',
      timed_out: false,
    });
  });

  it('fails a failing suite with the counts and the end of the output', async () => {
    writeFileSync(join(workdir, 'math.test.mjs'), failing);
    const outcome = await run({});
    const output = outcome.output as TestRunnerOutput;
    expect(output).toMatchObject({ passed: false, exit_code: 1, summary: '1 passed, 1 failed' });
    expect(output.output_tail).toMatch(/is wrong/);
  });

  it('takes no arguments unless a filter is configured, and refuses filters that look like options', async () => {
    writeFileSync(join(workdir, 'math.test.mjs'), failing);
    const refused = await run({ filter: 'adds' });
    expect(refused.ok).toBe(true);
    expect((refused.output as TestRunnerOutput).summary).toBe('1 passed, 1 failed');
    const filterArgs = (filter: string) => ['--test-name-pattern', filter];
    const filtered = await run({ filter: 'adds' }, { filterArgs });
    expect(filtered.output).toMatchObject({ passed: true, summary: '1 passed, 0 failed' });
    const option = await run({ filter: '--eval=process.exit(0)' }, { filterArgs });
    expect(option.error?.code).toBe('tool_invalid_input');
  });

  it('reports a timeout as a failed run', async () => {
    writeFileSync(
      join(workdir, 'slow.test.mjs'),
      "import test from 'node:test';\ntest('hangs', () => new Promise(() => setInterval(() => {}, 1000)));\n",
    );
    const outcome = await run({}, { timeoutMs: 800 });
    expect(outcome.output).toMatchObject({
      passed: false,
      timed_out: true,
      summary: expect.stringMatching(/^timed out after 800 ms/),
    });
  });

  it('cannot write outside its workdir', async () => {
    writeFileSync(
      join(workdir, 'escape.test.mjs'),
      `import test from 'node:test';\nimport { writeFileSync } from 'node:fs';\n` +
        `test('escapes', () => { writeFileSync('inside.txt', 'ran'); ` +
        `try { writeFileSync(${JSON.stringify(join(base, 'pwned.txt'))}, 'x') } catch {} });\n`,
    );
    const outcome = await run({});
    expect(outcome.output).toMatchObject({ passed: true, summary: '1 passed, 0 failed' });
    expect(readdirSync(base)).toEqual(['work']);
    expect(readdirSync(workdir).sort()).toEqual(['escape.test.mjs', 'inside.txt']);
  });
});

describe.skipIf(!status.ok)(`test_runner quarantine${skipReason}`, () => {
  it('reports sockets a test left behind, after removing them', async () => {
    writeFileSync(
      join(workdir, 'sock.test.mjs'),
      `import test from 'node:test';\nimport { execFileSync } from 'node:child_process';\n` +
        `test('leaves a socket', () => { execFileSync('perl', ['-MIO::Socket::UNIX', '-e', ` +
        `'IO::Socket::UNIX->new(Local => "sock", Listen => 1)']) });\n`,
    );
    const outcome = await run({});
    expect(outcome.output).toMatchObject({
      passed: true,
      quarantined: [{ path: 'sock', what: 'socket', action: 'removed' }],
    });
    expect(readdirSync(workdir)).toEqual(['sock.test.mjs']);
  });
});

describe.skipIf(!status.ok)(`test_runner disk limit${skipReason}`, () => {
  it('fails a run stopped at the disk limit, and says so in the summary', async () => {
    writeFileSync(
      join(workdir, 'fill.test.mjs'),
      `import test from 'node:test';\nimport { writeFileSync } from 'node:fs';\n` +
        `test('fills the disk', async () => { for (let i = 0; i < 200; i++) { ` +
        `writeFileSync('f' + i, Buffer.alloc(1 << 20, 1)); await new Promise((r) => setTimeout(r, 2)); } });\n`,
    );
    const outcome = await run({}, { limits: { diskBytes: 16 << 20 } });
    expect(outcome.output).toMatchObject({
      passed: false,
      // The runner, stopped, may still print its counts (Node's prints `# pass 0` on SIGTERM); then they are kept.
      summary: expect.stringMatching(
        /^stopped: the tests wrote more than the sandbox's disk limit( \(\d+ passed, \d+ failed so far\))?$/,
      ),
      limits_reached: [expect.stringMatching(/^disk: the command added more than diskBytes/)],
    });
  });
});

describe('test_runner configuration', () => {
  it('needs a command, and is an exec tool the model cannot re-aim', () => {
    expect(() => createTestRunnerTool({ sandbox: bwrap, workdir: tmpdir(), command: [] })).toThrow(/non-empty argv/);
    const tool = createTestRunnerTool({ sandbox: bwrap, workdir: tmpdir(), command: ['npm', 'test'] });
    expect([tool.effects, tool.idempotent]).toEqual(['exec', false]);
    expect(tool.inputSchema).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });
});
