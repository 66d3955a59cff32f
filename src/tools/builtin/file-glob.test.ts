import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import type { Tool } from '../define-tool.ts';
import { globInScope } from '../guards/path-glob.ts';
import { runToolCall } from '../run-tool-call.ts';
import { createFileGlobTool } from './file-glob.ts';

const DIRS = 40;
const FILES_PER_DIR = 100;
const LONG_NAME = 'a'.repeat(120);

let top: string;
let roots: string[];

beforeAll(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agency-file-glob-'));
  roots = [path.join(top, 'task'), path.join(top, 'progress')];
  await mkdir(path.join(top, 'progress'), { recursive: true });
  await writeFile(path.join(top, 'progress', LONG_NAME), 'x');
  for (let dir = 0; dir < DIRS; dir++) {
    const folder = path.join(top, 'task', `d${String(dir).padStart(2, '0')}`);
    await mkdir(folder, { recursive: true });
    // Long names of a's: each cost `path.matchesGlob` tens of milliseconds against `*a*a*a*a*a*b`, in one synchronous
    // loop per directory.
    const names = Array.from({ length: FILES_PER_DIR }, (_, file) => `${'a'.repeat(60)}${file}.md`);
    await Promise.all(names.map((name) => writeFile(path.join(folder, name), '')));
  }
}, 60_000);

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

const call = (pattern: string) => ({ toolCallId: 'call_1', toolName: 'file_glob', input: { pattern } });

describe('file_glob under a timeout', () => {
  it('answers a pattern that used to block for 22 s well within a 2 s timeout', async () => {
    const started = performance.now();
    const outcome = await runToolCall(createFileGlobTool({ roots }), call('progress/*a*a*a*a*a*b'), {
      timeoutMs: 2000,
    });
    expect(outcome.ok).toBe(true);
    expect(outcome.output).toEqual({ paths: [], truncated: false });
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('stops walking when the timeout fires, instead of finishing in the background', async () => {
    const full = await globInScope(roots, '**/*.md', { maxResults: 10_000 });
    expect(full.paths).toHaveLength(DIRS * FILES_PER_DIR);

    const inner = createFileGlobTool({ roots });
    let work: Promise<{ error?: unknown; output?: unknown }> | undefined;
    const watched: Tool = {
      ...inner,
      execute: (input, context) => {
        const running = Promise.resolve(inner.execute(input as never, context));
        work = running.then(
          (output) => ({ output }),
          (error: unknown) => ({ error }),
        );
        return running;
      },
    };
    const outcome = await runToolCall(watched, call('**/*.md'), { timeoutMs: 1 });
    expect(outcome.error?.code).toBe('tool_timeout');
    const settled = await work!;
    // A walk that ran on would resolve with every path; a stopped one rejects with the timeout it was aborted for.
    expect(settled.output).toBeUndefined();
    expect(AgencyError.hasCode(settled.error, 'tool_timeout')).toBe(true);
  });

  it('keeps the event loop turning through a directory of long names', async () => {
    let longest = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last);
      last = now;
    }, 2);
    try {
      const outcome = await runToolCall(createFileGlobTool({ roots }), call('d00/*a*a*a*a*a*b'), { timeoutMs: 30_000 });
      expect(outcome.ok).toBe(true);
      expect(outcome.output).toEqual({ paths: [], truncated: false });
    } finally {
      clearInterval(ticker);
    }
    expect(longest).toBeLessThan(500);
  });

  it('cancels with the caller', async () => {
    const controller = new AbortController();
    const running = runToolCall(createFileGlobTool({ roots }), call('**/*.md'), { signal: controller.signal });
    controller.abort();
    expect((await running).error?.code).toBe('aborted');
    const error = await globInScope(roots, '**', { signal: controller.signal }).catch((thrown: unknown) => thrown);
    expect(AgencyError.hasCode(error, 'aborted')).toBe(true);
  });
});
