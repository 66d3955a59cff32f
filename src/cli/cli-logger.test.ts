import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cliLogger } from './cli-logger.ts';

afterEach(() => {
  vi.restoreAllMocks();
});

describe('cliLogger', () => {
  it('writes JSON lines with the component to a file, creating its directory', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'agency-cli-log-')), 'logs', 'run.log');
    cliLogger(file, { component: 'runner', name: 'agency-run' }).info({ task_id: 't1' }, 'started');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      component: 'runner',
      name: 'agency-run',
      task_id: 't1',
      msg: 'started',
    });
  });

  it('writes to stderr for -, never to stdout', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write');
    cliLogger('-', { component: 'mcp', name: 'agency-mcp' }).warn('careful');
    expect(stderr).toHaveBeenCalledTimes(1);
    expect(JSON.parse(String(stderr.mock.calls[0]?.[0]))).toMatchObject({ component: 'mcp', msg: 'careful' });
    expect(stdout).not.toHaveBeenCalled();
  });

  it('refuses a path it cannot open, naming the option and saying what to give (exit 2)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agency-cli-log-'));
    writeFileSync(join(dir, 'file'), '');
    for (const bad of [join(dir, 'file', 'under-a-file.log'), dir]) {
      let thrown: unknown;
      try {
        cliLogger(bad, { component: 'runner', name: 'agency-run' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown, bad).toMatchObject({
        message: expect.stringMatching(
          new RegExp(`^--log-file ${bad}: cannot be opened for writing \\(E[A-Z]+\\)\\. Give a path`),
        ),
        exitCode: 2,
      });
    }
  });
});
