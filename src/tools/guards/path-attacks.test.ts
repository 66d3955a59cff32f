import { constants, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import { buildPathTree, type PathTree, type SetupOp } from './__fixtures__/path-tree.ts';
import { readFileInScope, writeFileAtomicInScope } from './path-io.ts';
import { openInScope } from './path-open.ts';
import { quotePath } from './path-refusal.ts';
import { resolveInScope, type ScopeMode } from './path-resolve.ts';
import { isInsideRoot } from './path-roots.ts';
import { rejection } from '../../../test/support/rejection.ts';

type AttackCase = {
  name: string;
  setup?: SetupOp[];
  path: string;
  mode: ScopeMode;
  expect: 'refuse' | 'allow';
  code?: string;
  roots?: string[];
  repeat?: number;
  content?: string;
  note?: string;
};

const cases = JSON.parse(
  readFileSync(new URL('./__fixtures__/path-attacks.json', import.meta.url), 'utf8'),
) as AttackCase[];

let tree: PathTree;
let before: Record<string, string>;

beforeAll(async () => {
  tree = await buildPathTree();
  for (const c of cases) await tree.apply(c.setup ?? []);
  before = tree.snapshotOutside();
});

afterAll(async () => {
  await tree.cleanup();
});

function userPath(c: AttackCase): string {
  const raw = c.path.replaceAll('{top}', tree.top);
  return c.repeat === undefined ? raw : raw.repeat(c.repeat);
}

function rootsOf(c: AttackCase): string[] {
  return (c.roots ?? ['task', 'progress']).map((root) => path.join(tree.top, root) + (root.endsWith('/') ? '/' : ''));
}

function expectRefusal(error: AgencyError, c: AttackCase, p: string): void {
  expect(error.code).toBe(c.code);
  expect(error.message).toContain(quotePath(p));
  expect(error.message).toMatch(/; \S/);
}

describe('path attack corpus', () => {
  it('has at least 200 cases, with both refusals and allowed paths', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
    expect(cases.filter((c) => c.expect === 'allow').length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    for (const c of cases) {
      if (c.expect === 'allow') expect(c.code, c.name).toBeUndefined();
      else expect(c.code, c.name).toMatch(/^path_(outside_scope|invalid|symlink_escape|not_found)$/);
    }
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_, c) => {
    const p = userPath(c);
    const roots = rootsOf(c);
    if (c.expect === 'refuse') await expectRefused(c, roots, p);
    else await expectAllowed(c, roots, p);
    expect(tree.snapshotOutside()).toEqual(before);
  });
});

async function expectRefused(c: AttackCase, roots: string[], p: string): Promise<void> {
  expectRefusal(await rejection(resolveInScope(roots, p, c.mode)), c, p);
  if (c.mode === 'read') {
    expectRefusal(await rejection(readFileInScope(roots, p)), c, p);
    expectRefusal(await rejection(openInScope(roots, p, 'read')), c, p);
  } else if (c.mode === 'write') {
    expectRefusal(await rejection(openInScope(roots, p, 'write')), c, p);
  } else {
    expectRefusal(await rejection(writeFileAtomicInScope(roots, p, `written by ${c.name}`)), c, p);
    expectRefusal(await rejection(openInScope(roots, p, 'create')), c, p);
  }
}

async function expectAllowed(c: AttackCase, roots: string[], p: string): Promise<void> {
  const resolved = await resolveInScope(roots, p, c.mode);
  expect(isInsideRoot(resolved.root, resolved.path)).toBe(true);
  if (c.mode === 'read') {
    if (resolved.kind === 'directory') {
      expect((await rejection(readFileInScope(roots, p))).code).toBe('path_invalid');
      return;
    }
    const text = (await readFileInScope(roots, p)).toString('utf8');
    expect(text).not.toContain(tree.marker);
    if (c.content !== undefined) expect(text).toBe(c.content);
    return;
  }
  const data = `written by ${c.name}\n`;
  if (c.mode === 'write') {
    const handle = await openInScope(roots, p, 'write', constants.O_WRONLY | constants.O_TRUNC);
    try {
      await handle.write(data);
    } finally {
      await handle.close();
    }
  } else {
    await writeFileAtomicInScope(roots, p, data);
  }
  expect((await readFileInScope(roots, p)).toString('utf8')).toBe(data);
}
