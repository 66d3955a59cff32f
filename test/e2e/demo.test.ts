import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { afterAll, describe, expect, it } from 'vitest';
import { rehostModel } from '../../examples/research/rehost-model.ts';
import { RECORDED_SITE } from '../../examples/research/serve-site.ts';
import { sha256Hex } from '../../src/core/sha256.ts';
import { replayModel } from '../../src/model/cassette/replay-model.ts';

const repo = join(import.meta.dirname, '../..');
const cassette = join(repo, 'examples/research/cassette.jsonl');
const exec = promisify(execFile);
const scratch: string[] = [];
afterAll(() => Promise.all(scratch.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('npm run demo', () => {
  it('runs twice at once: each research demo serves its own port, takes its own folder and completes', async () => {
    const out = await mkdtemp(join(tmpdir(), 'agency-demo-'));
    scratch.push(out);
    const demo = () =>
      exec(process.execPath, [join(repo, 'scripts/demo.ts'), '--example', 'research', '--out', out], {
        cwd: repo,
        maxBuffer: 16 * 1024 * 1024,
      });
    const runs = await Promise.all([demo(), demo()]);
    const seen = runs.map(({ stdout }) => {
      expect(stdout).toContain('Finished: completed (verified)');
      const [, folder, address] = /=== research: (\S+) \(model [^,]+, site on (127\.0\.0\.1:\d+)\)/.exec(stdout) ?? [];
      return { folder: folder ?? '', address: address ?? '' };
    });
    expect(new Set(seen.map(({ folder }) => folder)).size).toBe(2);
    expect(new Set(seen.map(({ address }) => address)).size).toBe(2);
    for (const { folder, address } of seen) {
      // The brief cites the pages where they were fetched, not where they were recorded.
      const brief = await readFile(join(repo, folder, 'progress/artifacts/brief.md'), 'utf8');
      expect(brief).toContain(`http://${address}/survey.html`);
      if (address !== RECORDED_SITE) expect(brief).not.toContain(RECORDED_SITE);
    }
  }, 120_000);

  it('fails in one line, not a stack trace, when it cannot start', async () => {
    const failed = await exec(process.execPath, [join(repo, 'scripts/demo.ts'), '--example', 'nope'], {
      cwd: repo,
    }).catch((error: { code: number; stdout: string; stderr: string }) => error);
    expect(failed).toMatchObject({ code: 1, stderr: 'demo: Unknown example "nope"; choose research, code or all\n' });
  });
});

// The second recorded call: the model has just read task/links.txt, whose text and sha256 hold the recorded address.
function recordedRequest(index: number): LanguageModelV4CallOptions {
  const line = readFileSync(cassette, 'utf8').split('\n')[index + 1] as string;
  return (JSON.parse(line) as { request: LanguageModelV4CallOptions }).request;
}

describe('rehostModel', () => {
  const actual = '127.0.0.1:51234';
  const links = (address: string) => `http://${address}/survey.html\nhttp://${address}/press-release.html\n`;
  const asServed = (request: LanguageModelV4CallOptions) =>
    JSON.parse(
      JSON.stringify(request)
        .replaceAll(RECORDED_SITE, actual)
        .replaceAll(sha256Hex(links(RECORDED_SITE)), sha256Hex(links(actual))),
    ) as LanguageModelV4CallOptions;

  it('replays the cassette strictly for a site on another port, digests included', async () => {
    const request = recordedRequest(1);
    expect(JSON.stringify(request)).toContain(sha256Hex(links(RECORDED_SITE)));
    const model = rehostModel(replayModel(cassette), { recorded: RECORDED_SITE, actual });
    const result = await model.doGenerate(asServed(request));
    // The model asked for the pages at the recorded address; the tools are sent to the served one.
    const calls = result.content.filter((part) => part.type === 'tool-call').map((part) => part.input);
    expect(calls.join('\n')).toContain(`http://${actual}/survey.html`);
    expect(calls.join('\n')).not.toContain(RECORDED_SITE);
  });

  it('still refuses a request that differs in anything but the address', async () => {
    const request = asServed(recordedRequest(1));
    const tampered = JSON.parse(JSON.stringify(request).replace('cycling survey', 'cycling census')) as typeof request;
    const model = rehostModel(replayModel(cassette), { recorded: RECORDED_SITE, actual });
    await expect(model.doGenerate(tampered)).rejects.toMatchObject({ code: 'cassette_mismatch' });
  });

  it('refuses an address of another length, and passes non-plain values through untouched', async () => {
    expect(() => rehostModel(replayModel(cassette), { recorded: RECORDED_SITE, actual: '127.0.0.1:80' })).toThrow(
      /differ in length/,
    );
    const signal = new AbortController().signal;
    let seen: LanguageModelV4CallOptions | undefined;
    const inner = replayModel(cassette, { lenient: true });
    const spy = {
      ...inner,
      doGenerate: (options: LanguageModelV4CallOptions) => {
        seen = options;
        return inner.doGenerate(options);
      },
    };
    await rehostModel(spy, { recorded: RECORDED_SITE, actual }).doGenerate({
      ...asServed(recordedRequest(1)),
      abortSignal: signal,
    });
    expect(seen?.abortSignal).toBe(signal);
    expect(JSON.stringify(seen?.prompt)).not.toContain(actual);
  });
});
