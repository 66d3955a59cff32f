import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { globInScope } from './path-glob.ts';

// Patterns that took seconds to forever with `path.matchesGlob` (a backtracking RegExp per entry), each against a
// file with a 120-character name. Bounds are generous for a loaded machine: the point is milliseconds, not minutes.
const LONG_NAME = 'a'.repeat(120);
const DEEP_FILE = `progress/${'a/'.repeat(20)}${LONG_NAME}`;
const FAST_MS = 1000;

let top: string;
let roots: string[];

beforeAll(async () => {
  top = await mkdtemp(path.join(os.tmpdir(), 'agency-glob-attack-'));
  roots = [path.join(top, 'task'), path.join(top, 'progress')];
  await mkdir(path.join(top, 'task'));
  let deep = path.join(top, 'progress');
  for (let depth = 0; depth < 20; depth++) deep = path.join(deep, 'a');
  await mkdir(deep, { recursive: true });
  await writeFile(path.join(top, 'progress', LONG_NAME), 'x');
  await writeFile(path.join(deep, LONG_NAME), 'x');
});

afterAll(async () => {
  await rm(top, { recursive: true, force: true });
});

async function timed(pattern: string) {
  const started = performance.now();
  const outcome = await globInScope(roots, pattern).then(
    (result) => ({ result, error: undefined }),
    (error: unknown) => ({ result: undefined, error }),
  );
  return { ...outcome, ms: performance.now() - started };
}

describe('glob patterns that used to block the event loop', () => {
  it.each([
    ['five stars (5 s before)', `progress/${'*a'.repeat(5)}*b`, []],
    ['six stars (never finished before)', `progress/${'*a'.repeat(6)}*b`, []],
    ['sixteen stars, the most allowed', `progress/${'*a'.repeat(15)}*b`, []],
    ['five stars that do match', `progress/${'*a'.repeat(5)}*`, [`progress/${LONG_NAME}`]],
    ['a 64-way brace expansion', `progress/${'{a,b}'.repeat(6)}*`, [`progress/${LONG_NAME}`]],
    ['globstars between stars', `progress/**/${'*a'.repeat(5)}*b`, []],
    ['collapsed globstars', `progress/${'**/'.repeat(12)}${'*a'.repeat(3)}`, [DEEP_FILE, `progress/${LONG_NAME}`]],
    ['an 850-byte pattern', `progress/${`{${'b'.repeat(240)},a}/`.repeat(3)}*${'a'.repeat(100)}*`, []],
    ['a 120-character segment', `progress/**/*${'a'.repeat(119)}?`, [DEEP_FILE, `progress/${LONG_NAME}`]],
  ])('%s finishes in milliseconds', async (_, pattern, expected) => {
    const { result, error, ms } = await timed(pattern);
    expect(error).toBeUndefined();
    expect(result?.paths).toEqual(expected);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it.each([
    ['{a,b} fifteen times (35 s before)', `progress/${'{a,b}'.repeat(15)}`, /has 15 brace groups; the limit is 8/],
    [
      'forty-one stars',
      `progress/${'*a'.repeat(40)}*b`,
      /has 41 wildcards \(runs of \* and each \?\); the limit is 16/,
    ],
    ['thirty globstars', `progress/${'**/'.repeat(30)}c`, /has 30 wildcards/],
    ['a 3847-byte pattern', `progress/${`*${'a'.repeat(200)}/`.repeat(19)}`, /has 3847 bytes; the limit is 1024/],
    [
      '256 alternatives',
      `progress/${'{a,b}'.repeat(8)}`,
      /has 256 alternatives after brace expansion; the limit is 64/,
    ],
    ['a huge range', 'progress/{1..100000000}', /has 100000000 alternatives after brace expansion; the limit is 64/],
    [
      'long alternatives',
      `progress/{${'a'.repeat(200)},b}{c,d}{e,f}{g,h}{i,j}{k,l}`,
      /has 6752 characters after brace expansion; the limit is 4096/,
    ],
    ['deep nesting', 'progress/{a,{b,{c,{d,e}}}}', /has 4 levels of nested braces; the limit is 3/],
    ['many classes', `progress/${'[ab]'.repeat(17)}`, /has 17 character classes; the limit is 16/],
  ])('%s is refused at once, naming the limit', async (_, pattern, message) => {
    const { error, ms } = await timed(pattern);
    expect(AgencyError.hasCode(error, 'path_invalid')).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toMatch(/; use a simpler pattern or several calls$/);
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('matches brace alternatives such as ".." only against real names, never as a climb', async () => {
    expect((await globInScope(roots, 'progress/{..,.}/*')).paths).toEqual([]);
    expect((await globInScope(roots, 'progress/{..,a}/*')).paths).toEqual(['progress/a/a/']);
  });

  it('visits only the directories the pattern can still match', async () => {
    const walked = await globInScope(roots, `progress/a/a/a/*a*a*a*a*a*b`);
    expect(walked).toEqual({ paths: [], truncated: false, entries: 1 });
    const everything = await globInScope(roots, 'progress/**');
    expect(everything.entries).toBe(22);
  });
});
