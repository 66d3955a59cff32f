// A generated corpus of invalid decision files, used by the approval fuzz tests. Every mutation turns a valid
// decision into one that must never be acted on, and names the words the broker's report must contain.
import type { ApprovalDecision, ApprovalRequest } from '../../src/task/contracts/approvals.ts';
import { bindingOf } from '../../src/task/approvals/validate-decision.ts';
import { formatJson } from '../../src/task/approvals/internal/approval-files.ts';

/** A small seeded PRNG (mulberry32), so every generated case can be replayed from its seed. */
export type Rng = {
  next(): number;
  int(max: number): number;
  pick<T>(items: readonly T[]): T;
  hex(length: number): string;
};

/** Creates a {@link Rng} from a 32-bit seed. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (max: number) => Math.floor(next() * max);
  return {
    next,
    int,
    pick: <T>(items: readonly T[]): T => items[int(items.length)] as T,
    hex: (length: number) => Array.from({ length }, () => '0123456789abcdef'[int(16)]).join(''),
  };
}

/** A random plan or tool request (tool requests with and without a plan), expiring an hour after `now`. */
export function sampleRequest(rng: Rng, id: string, now: number): ApprovalRequest {
  const times = { created_at: new Date(now).toISOString(), expires_at: new Date(now + 3_600_000).toISOString() };
  if (rng.next() < 0.5) {
    return {
      id,
      type: 'plan',
      task_id: 'task_fuzz',
      plan_path: 'progress/plan/current.json',
      plan_sig: rng.hex(64),
      rationale: 'review the plan',
      ...times,
    };
  }
  return {
    id,
    type: 'tool',
    task_id: 'task_fuzz',
    tool_name: rng.pick(['sandbox_exec', 'fs_write', 'http_post']),
    tool_args: { command: `echo ${rng.hex(6)}` },
    args_digest: rng.hex(64),
    tool_call_id: `call_${rng.hex(8)}`,
    rationale: 'run a command',
    plan_sig: rng.next() < 0.5 ? null : rng.hex(64),
    ...times,
  };
}

/** A valid decision on `request`. */
export function validDecision(
  request: ApprovalRequest,
  decision: ApprovalDecision['decision'],
  by: string,
  at: number,
): ApprovalDecision {
  return { id: request.id, decision, approved_by: by, timestamp: new Date(at).toISOString(), ...bindingOf(request) };
}

/** One way to spoil a decision file, and words the report about it must contain. */
export type Mutation = {
  name: string;
  /** Words every report about this file contains. */
  expect: string;
  applies?: (request: ApprovalRequest) => boolean;
  /** The spoiled decision as a record (absent for mutations that only exist as text). */
  record?: (rng: Rng, request: ApprovalRequest, valid: ApprovalDecision) => Record<string, unknown>;
  text?: (rng: Rng, request: ApprovalRequest, valid: ApprovalDecision) => string;
};

const edit = (valid: ApprovalDecision, changes: Record<string, unknown>, drop: string[] = []) => {
  const out: Record<string, unknown> = { ...valid, ...changes };
  for (const key of drop) delete out[key];
  return out;
};
const isPlan = (request: ApprovalRequest) => request.type === 'plan';
const isTool = (request: ApprovalRequest) => request.type === 'tool';

/** Every mutation the fuzz tests draw from. */
export const MUTATIONS: readonly Mutation[] = [
  {
    name: 'bad-json',
    expect: 'not valid JSON',
    text: (rng) =>
      rng.pick([
        '{decision: approved}',
        "{'id': 1}",
        '{"id": "req_',
        `{"decision":"approved",}`,
        `approved ${rng.hex(4)}`,
      ]),
  },
  {
    name: 'truncated',
    expect: 'not valid JSON',
    text: (rng, _request, valid) => {
      const full = formatJson(valid);
      return full.slice(0, 1 + rng.int(full.lastIndexOf('}') - 1));
    },
  },
  { name: 'empty', expect: 'the file is empty', text: (rng) => rng.pick(['', '\n', '   \n\t']) },
  {
    name: 'not-an-object',
    expect: 'must be a JSON object',
    text: (rng) => rng.pick(['[]', '"approved"', '42', 'null', 'true', '[{"decision":"approved"}]']),
  },
  { name: 'bom', expect: 'not valid JSON', text: (_rng, _request, valid) => `\uFEFF${formatJson(valid)}` },
  {
    name: 'wrong-id',
    expect: '"id" is',
    record: (rng, _request, valid) =>
      edit(valid, { id: rng.pick([`req_${rng.hex(10)}`, String(valid.id).toUpperCase(), `${valid.id} `, 42]) }),
  },
  { name: 'missing-id', expect: '"id" is missing', record: (_rng, _request, valid) => edit(valid, {}, ['id']) },
  {
    name: 'unknown-decision',
    expect: '"decision" must be approved|denied|expired',
    record: (rng, _request, valid) =>
      edit(valid, {
        decision: rng.pick([
          'yes',
          'approve',
          'APPROVED',
          'Approved',
          'ok',
          '',
          'approved ',
          null,
          1,
          true,
          ['approved'],
        ]),
      }),
  },
  {
    name: 'missing-decision',
    expect: '"decision" must be approved|denied|expired',
    record: (_rng, _request, valid) => edit(valid, {}, ['decision']),
  },
  {
    name: 'empty-approved-by',
    expect: '"approved_by" must name who decided',
    record: (rng, _request, valid) => edit(valid, { approved_by: rng.pick(['', '   ', '\t', null, 42]) }),
  },
  {
    name: 'missing-approved-by',
    expect: '"approved_by" must name who decided',
    record: (_rng, _request, valid) => edit(valid, {}, ['approved_by']),
  },
  {
    name: 'bad-timestamp',
    expect: '"timestamp" must be',
    record: (rng, _request, valid) =>
      edit(valid, { timestamp: rng.pick(['yesterday', '2025-13-01T00:00:00Z', '2025-01-01', 1735732800000, '']) }),
  },
  {
    name: 'missing-timestamp',
    expect: '"timestamp" must be',
    record: (_rng, _request, valid) => edit(valid, {}, ['timestamp']),
  },
  {
    name: 'stale-plan-sig',
    expect: 'does not match the current plan',
    applies: isPlan,
    record: (rng, _request, valid) =>
      edit(valid, { plan_sig: rng.pick([rng.hex(64), (valid.plan_sig ?? '').toUpperCase(), `${valid.plan_sig} `]) }),
  },
  {
    name: 'missing-plan-sig',
    expect: '"plan_sig" is missing',
    applies: isPlan,
    record: (_rng, _request, valid) => edit(valid, {}, ['plan_sig']),
  },
  {
    name: 'plan-with-args-digest',
    expect: '"args_digest" belongs to tool requests',
    applies: isPlan,
    record: (rng, _request, valid) => edit(valid, { args_digest: rng.hex(64) }),
  },
  {
    name: 'wrong-args-digest',
    expect: "call's arguments",
    applies: isTool,
    record: (rng, _request, valid) =>
      edit(valid, {
        args_digest: rng.pick([
          rng.hex(64),
          (valid.args_digest ?? '').toUpperCase(),
          (valid.args_digest ?? '').slice(1),
        ]),
      }),
  },
  {
    name: 'missing-args-digest',
    expect: '"args_digest" is missing',
    applies: isTool,
    record: (_rng, _request, valid) => edit(valid, {}, ['args_digest']),
  },
  {
    name: 'tool-wrong-plan-sig',
    expect: 'plan_sig',
    applies: isTool,
    record: (rng, _request, valid) => edit(valid, { plan_sig: rng.hex(64) }),
  },
  {
    name: 'unknown-field',
    expect: 'unknown field',
    record: (rng, _request, valid) => edit(valid, { [rng.pick(['approve', 'Decision', 'approved', 'force'])]: true }),
  },
  {
    name: 'reason-not-string',
    expect: '"reason" must be a string',
    record: (rng, _request, valid) => edit(valid, { reason: rng.pick([42, { why: 'ok' }, null]) }),
  },
];

/** The mutations that apply to `request`. */
export function mutationsFor(request: ApprovalRequest): Mutation[] {
  return MUTATIONS.filter((mutation) => mutation.applies?.(request) ?? true);
}

/** The text of a decision file spoiled by `mutation`. */
export function mutate(rng: Rng, mutation: Mutation, request: ApprovalRequest, valid: ApprovalDecision): string {
  if (mutation.text !== undefined) return mutation.text(rng, request, valid);
  if (mutation.record === undefined) throw new Error(`mutation ${mutation.name} makes nothing`);
  return formatJson(mutation.record(rng, request, valid));
}
