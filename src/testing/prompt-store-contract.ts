import assert from 'node:assert/strict';
import { AgencyError } from '../core/errors.ts';
import { MAX_PROMPT_TEXT_BYTES } from '../prompts/prompt-checks.ts';
import type { PromptStore } from '../prompts/prompt-store.ts';
import type { ContractCase } from './contract-case.ts';

/** One case of a contract suite: register it with your test runner, e.g. `it(test.name, test.run)`. */

/**
 * The behaviour every `PromptStore` must have, as test cases for any test runner. `makeStore` returns a new, empty
 * store for each case (clean it up in your runner's after-each hook).
 *
 * @example
 * describe('my prompt store', () => {
 *   for (const test of promptStoreContract(() => createMyStore())) it(test.name, test.run);
 * });
 */
export function promptStoreContract(makeStore: () => PromptStore | Promise<PromptStore>): ContractCase[] {
  const cases: Array<[string, (store: PromptStore) => Promise<void>]> = [
    ['an empty store has nothing', empty],
    ['put adds versions 1, 2, 3 and never changes an earlier one', versions],
    ['put fills in the defaults, who and when', defaults],
    ['render fills in variables and names a missing one', render],
    ['render inserts values as they are, never expanding a {{…}} inside one', injection],
    ['put refuses an invalid template and stores nothing', invalid],
    ['validate reports problems by field without storing', validate],
    ['list gives the latest of each id, or every version of one', list],
    ['every put is audited: who, when, the digests and what changed', audit],
    ['concurrent puts each get a version of their own', concurrent],
    ['ids with path tricks or capitals are refused everywhere', hostileIds],
    ['unicode and large texts come back byte for byte', roundTrip],
    ['a version handed out cannot be changed through it', copies],
  ];
  return cases.map(([name, body]) => ({ name, run: async () => body(await makeStore()) }));
}

const by = 'contract';

async function empty(store: PromptStore) {
  assert.equal(await store.get('runner.plan'), undefined);
  assert.equal(await store.get('runner.plan', 1), undefined);
  assert.deepEqual(await store.list(), []);
  assert.deepEqual(await store.audit(), []);
  await rejects(store.render('runner.plan', {}), 'prompt_not_found', /"runner\.plan"/);
}

async function versions(store: PromptStore) {
  for (const text of ['one', 'two', 'three']) await store.put({ id: 'greet', text, createdBy: by });
  assert.equal((await store.get('greet'))?.version, 3);
  assert.equal((await store.get('greet'))?.text, 'three');
  assert.equal((await store.get('greet', 1))?.text, 'one');
  assert.equal((await store.get('greet', 2))?.text, 'two');
  assert.equal(await store.get('greet', 4), undefined);
  const again = await store.put({ id: 'greet', text: 'one', createdBy: by });
  assert.equal(again.version, 4, 'putting an old text again is a new version');
  assert.equal((await store.get('greet', 1))?.createdBy, by);
}

async function defaults(store: PromptStore) {
  const before = Date.now() - 60_000;
  const put = await store.put({ id: 'greet', text: 'Hello {{name}}, {{#formal}}sir{{/formal}}', createdBy: 'alice' });
  assert.deepEqual(put.requiredVars, ['name', 'formal']);
  assert.equal(put.engine, 'mustache');
  assert.deepEqual(put.metadata, {});
  assert.equal(put.createdBy, 'alice');
  assert.match(put.createdAt, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.ok(Date.parse(put.createdAt) >= before);
  assert.deepEqual(await store.get('greet'), put);
  const meta = await store.put({ id: 'greet', text: 'Hi', metadata: { owner: 'ops', tags: ['a'] }, createdBy: 'bob' });
  assert.deepEqual((await store.get('greet', 2))?.metadata, { owner: 'ops', tags: ['a'] });
  assert.equal(meta.createdBy, 'bob');
}

async function render(store: PromptStore) {
  await store.put({ id: 'greet', text: 'Hello {{name}}{{^formal}}!{{/formal}}', createdBy: by });
  await store.put({ id: 'greet', text: 'Dear {{name}}.', createdBy: by });
  const latest = await store.render('greet', { name: 'Ada', unused: 'ignored' });
  assert.deepEqual(latest, { text: 'Dear Ada.', id: 'greet', version: 2, ref: 'greet@2' });
  assert.equal((await store.render('greet', { name: 'Ada', formal: false }, 1)).text, 'Hello Ada!');
  await rejects(
    store.render('greet', { formal: true }, 1),
    'prompt_variable_missing',
    /greet@1 uses the variable "name"/,
  );
  await rejects(store.render('greet', { name: 'x' }, 9), 'prompt_not_found', /no version 9 \(it has 1, 2\)/);
  await rejects(store.render('greet', { name: { toString: () => 'x' } } as never), 'invalid_argument', /"name"/);
  await rejects(store.render('greet', { constructor: 'x' }), 'prompt_variable_missing', /"name"/);
}

async function injection(store: PromptStore) {
  await store.put({ id: 'wrap', text: '<{{value}}>{{#flag}}[{{secret}}]{{/flag}}', createdBy: by });
  const hostile = '{{secret}} {{#flag}}x{{/flag}} \\{{secret}} }}{{';
  const rendered = await store.render('wrap', { value: hostile, flag: false, secret: 'S3CRET' });
  assert.equal(rendered.text, `<${hostile}>`);
  await store.put({ id: 'literal', text: 'a \\{{b}} c', createdBy: by });
  assert.deepEqual((await store.get('literal'))?.requiredVars, []);
  assert.equal((await store.render('literal', {})).text, 'a {{b}} c');
}

async function invalid(store: PromptStore) {
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ id: 'x', text: 'Hi {{name' }, /text line 1, column 4: "\{\{" is never closed/],
    [{ id: 'x', text: 'a\n{{#s}}b' }, /text line 2, column 1: .*never closed/],
    [{ id: 'x', text: '{{/s}}' }, /never opened/],
    [{ id: 'x', text: '{{a.b}}' }, /is not a tag/],
    [{ id: 'x', text: '{{name}}', requiredVars: [] }, /uses "name", which is not declared/],
    [{ id: 'x', text: 'hi', requiredVars: ['name'] }, /"name" is declared but the text does not use it/],
    [{ id: 'x', text: 'hi', engine: 'handlebars' }, /engine: "handlebars" is not a template engine/],
    [{ id: '../etc', text: 'hi' }, /id: "\.\.\/etc" is not a prompt id/],
    [{ id: 'x', text: 'bad \ud800 text' }, /lone UTF-16 surrogate/],
    [{ id: 'x', text: 'x'.repeat(MAX_PROMPT_TEXT_BYTES + 1) }, /over the \d+-byte limit/],
    [{ id: 'x', text: 'hi', metadata: [] }, /metadata: must be a JSON object/],
    [{ id: 'x', text: 'hi', createdBy: '' }, /createdBy: must name who/],
    [{ id: 'x', text: 'hi', createdBy: 'a\nb' }, /createdBy: must be one line/],
  ];
  for (const [draft, pattern] of bad) {
    await rejects(store.put({ createdBy: by, ...draft } as never), 'prompt_invalid', pattern);
  }
  assert.deepEqual(await store.list(), []);
  assert.deepEqual(await store.audit(), []);
}

async function validate(store: PromptStore) {
  const good = await store.validate({ id: 'x', text: 'Hi {{name}}' });
  assert.deepEqual(good, { ok: true, errors: [], variables: ['name'] });
  const bad = await store.validate({ id: 'x', text: 'Hi {{name}} {{#a}}', requiredVars: ['nome'] });
  assert.equal(bad.ok, false);
  assert.match(bad.errors.join('\n'), /never closed/);
  const vars = await store.validate({ id: 'x', text: 'Hi {{name}}', requiredVars: ['nome'] });
  assert.deepEqual(vars.errors, [
    'requiredVars: "nome" is declared but the text does not use it',
    'requiredVars: the text uses "name", which is not declared; add it',
  ]);
  assert.deepEqual(await store.list(), []);
}

async function list(store: PromptStore) {
  await store.put({ id: 'b.two', text: 'b1', createdBy: by });
  await store.put({ id: 'a.one', text: 'a1', createdBy: by });
  await store.put({ id: 'b.two', text: 'b2', createdBy: by });
  assert.deepEqual(
    (await store.list()).map((template) => [template.id, template.version, template.text]),
    [
      ['a.one', 1, 'a1'],
      ['b.two', 2, 'b2'],
    ],
  );
  assert.deepEqual(
    (await store.list({ id: 'b.two' })).map((template) => template.text),
    ['b1', 'b2'],
  );
  assert.deepEqual(await store.list({ id: 'c' }), []);
}

async function audit(store: PromptStore) {
  await store.put({ id: 'greet', text: 'Hello', createdBy: 'alice' });
  await store.put({ id: 'greet', text: 'Hello', metadata: { note: 'n' }, createdBy: 'bob' });
  await store.put({ id: 'other', text: 'x', createdBy: 'carol' });
  const trail = await store.audit({ id: 'greet' });
  assert.equal(trail.length, 2);
  const [first, second] = trail;
  assert.equal(first?.by, 'alice');
  assert.equal(first?.previous, null);
  assert.deepEqual(first?.changed, ['text', 'requiredVars', 'engine', 'metadata']);
  assert.equal(second?.by, 'bob');
  assert.equal(second?.version, 2);
  assert.deepEqual(second?.previous, { version: 1, sha256: first?.sha256 });
  assert.deepEqual(second?.changed, ['metadata']);
  assert.match(second?.sha256 ?? '', /^[0-9a-f]{64}$/);
  assert.notEqual(second?.sha256, first?.sha256);
  assert.equal(second?.at, (await store.get('greet', 2))?.createdAt);
  assert.deepEqual(
    (await store.audit()).map((entry) => `${entry.id}@${entry.version}`),
    ['greet@1', 'greet@2', 'other@1'],
  );
}

async function concurrent(store: PromptStore) {
  const puts = await Promise.all(
    Array.from({ length: 12 }, (_, i) => store.put({ id: 'race', text: `writer ${i}`, createdBy: `w${i}` })),
  );
  assert.deepEqual(
    puts.map((template) => template.version).sort((a, b) => a - b),
    Array.from({ length: 12 }, (_, i) => i + 1),
  );
  for (const put of puts) assert.equal((await store.get('race', put.version))?.text, put.text);
  assert.equal((await store.audit({ id: 'race' })).length, 12);
}

async function hostileIds(store: PromptStore) {
  for (const id of ['../etc/passwd', 'a/b', 'a\\b', '..', '.hidden', 'a..b', 'Plan', '', 'a\0b', 'x'.repeat(65)]) {
    await rejects(store.get(id), 'invalid_argument', /is not a prompt id|must be a string/);
    await rejects(store.render(id, {}), 'invalid_argument', /is not a prompt id/);
    await rejects(store.list({ id }), 'invalid_argument', /is not a prompt id/);
    await rejects(store.audit({ id }), 'invalid_argument', /is not a prompt id/);
  }
  for (const version of [0, -1, 1.5, Number.NaN]) await rejects(store.get('x', version), 'invalid_argument', /version/);
}

async function roundTrip(store: PromptStore) {
  const text = 'Grüße 👋🏽 — 你好 — שלום\r\nline two\ttab\n\n{{name}} ‮rtl‬\n';
  await store.put({ id: 'unicode', text, createdBy: 'Zoë 🧪' });
  assert.equal((await store.get('unicode'))?.text, text);
  assert.equal((await store.get('unicode'))?.createdBy, 'Zoë 🧪');
  const large = `${'line of a long template\n'.repeat(Math.floor((MAX_PROMPT_TEXT_BYTES - 64) / 24))}{{end}}`;
  await store.put({ id: 'large', text: large, createdBy: by });
  assert.equal((await store.render('large', { end: '.' })).text, `${large.slice(0, -7)}.`);
}

async function copies(store: PromptStore) {
  const put = await store.put({ id: 'greet', text: 'Hi {{name}}', metadata: { a: 1 }, createdBy: by });
  try {
    put.requiredVars.push('x');
    (put.metadata as Record<string, unknown>).a = 2;
    put.text = 'changed';
  } catch {
    // Frozen copies are fine too.
  }
  const got = await store.get('greet');
  assert.deepEqual([got?.text, got?.requiredVars, got?.metadata], ['Hi {{name}}', ['name'], { a: 1 }]);
  try {
    got?.requiredVars.push('y');
  } catch {
    // As above.
  }
  assert.deepEqual((await store.get('greet'))?.requiredVars, ['name']);
}

async function rejects(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(AgencyError.isInstance(error), `expected an AgencyError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    assert.match(error.message, message);
    return true;
  });
}
