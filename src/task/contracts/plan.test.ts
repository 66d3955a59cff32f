// A plan's signature is the SHA-256 of its RFC 8785 canonical JSON. These tests compute that form without the
// project's canonicalizer: by hand, for a plan with the RFC's own tricky keys and numbers, and with a small JCS
// written here from RFC 8785 §3.2, so a signPlan that skips a field, or a canonicalizer that drifts, is caught.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Plan, planSchema, signPlan } from './plan.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

// Keys from RFC 8785 §3.2.3, whose UTF-16 order differs from code-point order (😀 before U+FB33); "1" is listed first
// by Object.keys whatever its place in the literal. Numbers and the string from §3.2.2, plus a few more edge cases.
const SCHEMA = {
  '\u20ac': 'Euro Sign',
  '\r': 'Carriage Return',
  '\ufb33': 'Hebrew Letter Dalet With Dagesh',
  '1': 'One',
  '\ud83d\ude00': 'Emoji: Grinning Face',
  '\u0080': 'Control',
  '\u00f6': 'Latin Small Letter O With Diaeresis',
  numbers: [Number('333333333.33333329'), 1e30, 4.5, 2e-3, 1e-27, 1e21, 0.1, -0, 5e-324, Number('9007199254740993')],
  string: '€$\u000f\nA\'B"\\\\"/',
  literals: [null, true, false],
  nested: { b: 1, a: { d: [], c: {} } },
};

const PLAN: Plan = {
  version: 'plan.v1',
  goal: 'Résumé für Zoë: ship it 🚀',
  steps: [
    {
      id: 's1',
      title: 'Write "the" brief\n',
      description: 'tab\there, bell \u0007, DEL \u007f, </script> \\ done',
      tools: ['fs_write', 'fs_read'],
    },
    { id: 's2', title: '€ and 😀' },
  ],
  allowed_tools: ['fs_write', 'fs_read', 'http_fetch'],
  acceptance: [
    { id: 'a1', criterion: 'The brief exists', check: { type: 'file_exists', path: 'artifacts/brief.md' } },
    {
      id: 'a2',
      criterion: 'out.json matches',
      check: { type: 'json_validate', path: 'artifacts/out.json', schema: SCHEMA },
    },
    { id: 'a3', criterion: 'It names Zoë', check: { type: 'contains', path: 'artifacts/brief.md', text: 'Zoë' } },
    { id: 'a4', criterion: 'The tests pass', check: { type: 'test_runner' } },
  ],
};

// Written by hand from RFC 8785: keys sorted by UTF-16 code units, no whitespace, numbers as ECMAScript prints them,
// only `"`, `\` and control characters escaped (DEL, U+0080 and U+FB33 stay as they are).
const CANONICAL_SCHEMA =
  String.raw`{"\r":"Carriage Return","1":"One","literals":[null,true,false],"nested":{"a":{"c":{},"d":[]},"b":1},` +
  String.raw`"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27,1e+21,0.1,0,5e-324,9007199254740992],` +
  String.raw`"string":"€$\u000f\nA'B\"\\\\\"/","${'\u0080'}":"Control","ö":"Latin Small Letter O With Diaeresis",` +
  String.raw`"€":"Euro Sign","😀":"Emoji: Grinning Face","${'\ufb33'}":"Hebrew Letter Dalet With Dagesh"}`;
const CANONICAL =
  String.raw`{"acceptance":[{"check":{"path":"artifacts/brief.md","type":"file_exists"},"criterion":"The brief exists","id":"a1"},` +
  String.raw`{"check":{"path":"artifacts/out.json","schema":${CANONICAL_SCHEMA},"type":"json_validate"},` +
  String.raw`"criterion":"out.json matches","id":"a2"},` +
  String.raw`{"check":{"path":"artifacts/brief.md","text":"Zoë","type":"contains"},"criterion":"It names Zoë","id":"a3"},` +
  String.raw`{"check":{"type":"test_runner"},"criterion":"The tests pass","id":"a4"}],` +
  String.raw`"allowed_tools":["fs_write","fs_read","http_fetch"],"goal":"Résumé für Zoë: ship it 🚀",` +
  String.raw`"steps":[{"description":"tab\there, bell \u0007, DEL ${'\u007f'}, </script> \\ done","id":"s1",` +
  String.raw`"title":"Write \"the\" brief\n","tools":["fs_write","fs_read"]},{"id":"s2","title":"€ and 😀"}],` +
  String.raw`"version":"plan.v1"}`;
// sha256 of CANONICAL's UTF-8 bytes: a vector for any other implementation (see docs/plan.md).
const SIGNATURE = '20c3bc6aced16f098386a6f0324c5eedbca349e8e6795f12bb94c2e893f761ca';

/** RFC 8785 §3.2, for the JSON values a plan can hold. */
function jcs(value: unknown): string {
  if (value === null || typeof value === 'boolean') return String(value);
  // §3.2.2.3: ECMAScript's Number.prototype.toString, which prints -0 as 0.
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`${value} is not JSON`);
    return String(value);
  }
  if (typeof value === 'string') return jcsString(value);
  if (Array.isArray(value)) return `[${value.map(jcs).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort(byUtf16);
  return `{${keys.map((key) => `${jcsString(key)}:${jcs(record[key])}`).join(',')}}`;
}

function byUtf16(a: string, b: string): number {
  for (let index = 0; index < Math.min(a.length, b.length); index++) {
    const difference = a.charCodeAt(index) - b.charCodeAt(index);
    if (difference !== 0) return difference;
  }
  return a.length - b.length;
}

const SHORT_ESCAPES: Record<number, string> = {
  8: '\\b',
  9: '\\t',
  10: '\\n',
  12: '\\f',
  13: '\\r',
  34: '\\"',
  92: '\\\\',
};

// §3.2.2.2: `"` and `\` escaped, the short forms for \b \t \n \f \r, \u00xx (lower-case hex) for other controls.
function jcsString(text: string): string {
  if (!text.isWellFormed()) throw new Error('a lone surrogate is not JSON');
  let out = '"';
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    out += SHORT_ESCAPES[unit] ?? (unit < 0x20 ? `\\u${unit.toString(16).padStart(4, '0')}` : text[index]);
  }
  return `${out}"`;
}

describe('signPlan: the RFC 8785 vector', () => {
  it('the hand-written canonical form is what RFC 8785 gives, and valid JSON of the plan', () => {
    expect(planSchema.parse(PLAN)).toEqual(PLAN);
    expect(jcs(PLAN)).toBe(CANONICAL);
    expect(JSON.parse(CANONICAL)).toEqual(JSON.parse(JSON.stringify(PLAN)));
    expect(sha256(CANONICAL)).toBe(SIGNATURE);
  });

  it('signs that canonical form', () => {
    expect(signPlan(PLAN)).toBe(SIGNATURE);
  });

  it('signs the example in docs/plan.md to the canonical form and signature printed there', () => {
    const doc = readFileSync(join(import.meta.dirname, '../../../docs/plan.md'), 'utf8');
    const [, example] = /```json\n([\s\S]*?)```/.exec(doc) ?? [];
    const [, canonical] = /```text\n(.*)\n```/.exec(doc) ?? [];
    const [, signature] = /and signature `([0-9a-f]{64})`/.exec(doc) ?? [];
    const plan = planSchema.parse(JSON.parse(example ?? ''));
    expect(jcs(plan)).toBe(canonical);
    expect(sha256(canonical ?? '')).toBe(signature);
    expect(signPlan(plan)).toBe(signature);
    expect(doc).toContain(SIGNATURE);
  });

  it('ignores key order and formatting', () => {
    const reversed = reverseKeys(PLAN) as Plan;
    expect(Object.keys(reversed)).toEqual(Object.keys(PLAN).reverse());
    expect(signPlan(reversed)).toBe(SIGNATURE);
    expect(signPlan(JSON.parse(JSON.stringify(PLAN, null, 2)) as Plan)).toBe(SIGNATURE);
  });
});

// A deep copy with every object's keys in reverse order.
function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, item]) => [key, reverseKeys(item)]),
  );
}

type Edit = [string, (plan: Plan) => void];
const check = (plan: Plan, index: number) => plan.acceptance[index]!.check as Record<string, unknown>;
const schema = (plan: Plan) => check(plan, 1).schema as typeof SCHEMA;

// Each edit changes one field of a copy of the plan; `version` is a literal type, so it is changed through a cast.
const EDITS: Edit[] = [
  ['version', (plan) => Object.assign(plan, { version: 'plan.v2' })],
  ['goal', (plan) => (plan.goal = 'Résumé für Zoe: ship it 🚀')],
  ['goal (a trailing space)', (plan) => (plan.goal += ' ')],
  ['steps[0].id', (plan) => (plan.steps[0]!.id = 's0')],
  ['steps[0].title', (plan) => (plan.steps[0]!.title = 'Write "the" brief')],
  ['steps[0].description', (plan) => (plan.steps[0]!.description = 'tab\there')],
  ['steps[0].description removed', (plan) => delete plan.steps[0]!.description],
  ['steps[0].tools content', (plan) => (plan.steps[0]!.tools = ['fs_write', 'http_fetch'])],
  ['steps[0].tools order', (plan) => plan.steps[0]!.tools!.reverse()],
  ['steps[1].tools added', (plan) => (plan.steps[1]!.tools = [])],
  ['steps order', (plan) => plan.steps.reverse()],
  ['a step removed', (plan) => plan.steps.pop()],
  ['allowed_tools order', (plan) => plan.allowed_tools.reverse()],
  ['allowed_tools content', (plan) => (plan.allowed_tools[2] = 'http_post')],
  ['allowed_tools added', (plan) => plan.allowed_tools.push('sandbox_exec')],
  ['acceptance[0].id', (plan) => (plan.acceptance[0]!.id = 'a0')],
  ['acceptance[0].criterion', (plan) => (plan.acceptance[0]!.criterion = 'The brief exists.')],
  ['acceptance order', (plan) => plan.acceptance.reverse()],
  ['acceptance[3] removed', (plan) => plan.acceptance.pop()],
  ['check removed', (plan) => delete plan.acceptance[0]!.check],
  ['check.path', (plan) => (check(plan, 0).path = 'artifacts/brief.txt')],
  ['check.type', (plan) => (plan.acceptance[0]!.check = { type: 'contains', path: 'artifacts/brief.md', text: 'x' })],
  ['check.text', (plan) => (check(plan, 2).text = 'Zoe')],
  ['check.schema number', (plan) => (schema(plan).numbers[6] = 0.2)],
  ['check.schema 1e21', (plan) => (schema(plan).numbers[5] = 1e22)],
  ['check.schema key', (plan) => delete (schema(plan) as Record<string, unknown>)['\ufb33']],
  ['check.schema nested', (plan) => (schema(plan).nested.b = 2)],
  ['check.schema literal', (plan) => (schema(plan).literals[1] = false)],
];

describe('signPlan covers every field', () => {
  it.each(EDITS)('a change to %s changes the signature, to that of the changed canonical form', (_field, edit) => {
    const changed = structuredClone(PLAN);
    edit(changed);
    expect(jcs(changed)).not.toBe(CANONICAL);
    expect(signPlan(changed)).not.toBe(SIGNATURE);
    expect(signPlan(changed)).toBe(sha256(jcs(changed)));
  });
});
