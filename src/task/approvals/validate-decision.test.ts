import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../contracts/approvals.ts';
import {
  createRng,
  mutate,
  mutationsFor,
  sampleRequest,
  validDecision,
} from '../../../test/support/decision-corpus.ts';
import { bindingOf, checkDecision, checkDecisionText, sameDecision, toOutcome } from './validate-decision.ts';

const T0 = Date.parse('2025-01-01T12:00:00Z');
const SIG = 'a'.repeat(64);
const DIGEST = 'b'.repeat(64);
const planRequest: ApprovalRequest = {
  id: 'req_plan',
  type: 'plan',
  task_id: 'task_1',
  plan_path: 'progress/plan/current.json',
  plan_sig: SIG,
  rationale: 'review',
  created_at: '2025-01-01T12:00:00Z',
  expires_at: '2025-01-01T13:00:00Z',
};
const toolRequest: ApprovalRequest = {
  id: 'req_tool',
  type: 'tool',
  task_id: 'task_1',
  tool_name: 'sandbox_exec',
  tool_args: { command: 'ls' },
  args_digest: DIGEST,
  tool_call_id: 'call_1',
  rationale: 'run',
  plan_sig: null,
  created_at: '2025-01-01T12:00:00Z',
  expires_at: '2025-01-01T13:00:00Z',
};

describe('checkDecision', () => {
  it('accepts a decision bound to the plan it decides', () => {
    const decision = validDecision(planRequest, 'approved', 'ana@example.com', T0);
    expect(checkDecision(decision, 'req_plan', planRequest)).toEqual({ ok: true, decision });
    expect(toOutcome(decision)).toEqual({ decision: 'approved', decidedBy: 'ana@example.com', at: decision.timestamp });
  });

  it('binds plan decisions to plan_sig and tool decisions to args_digest (and plan_sig when there is one)', () => {
    expect(bindingOf(planRequest)).toEqual({ plan_sig: SIG });
    expect(bindingOf(toolRequest)).toEqual({ args_digest: DIGEST });
    expect(bindingOf({ ...toolRequest, plan_sig: SIG })).toEqual({ args_digest: DIGEST, plan_sig: SIG });
  });

  it('explains a stale plan_sig in words a human can act on', () => {
    const stale = { ...validDecision(planRequest, 'approved', 'ana', T0), plan_sig: 'c'.repeat(64) };
    const check = checkDecision(stale, 'req_plan', planRequest);
    expect(check).toEqual({
      ok: false,
      problem:
        'plan_sig cccccccc… does not match the current plan (aaaaaaaa…): the plan changed after you read it; ' +
        'review progress/plan/current.json and decide again',
    });
  });

  it('names every problem at once', () => {
    const check = checkDecisionText('{"id":"req_x","decision":"yes","approved_by":" "}', 'req_tool', toolRequest);
    expect(check.ok).toBe(false);
    const problem = check.ok ? '' : check.problem;
    expect(problem).toContain('"id" is "req_x" but this file decides req_tool');
    expect(problem).toContain('"decision" must be approved|denied|expired (got "yes")');
    expect(problem).toContain('"approved_by" must name who decided');
    expect(problem).toContain('"timestamp" must be');
    expect(problem).toContain('"args_digest" is missing');
  });

  it('refuses a decision for a request that does not exist', () => {
    const decision = validDecision(planRequest, 'approved', 'ana', T0);
    const check = checkDecision(decision, 'req_plan', undefined);
    expect(check.ok ? '' : check.problem).toContain('no request req_plan exists');
  });

  it('compares decisions by content, not key order', () => {
    const a = validDecision(planRequest, 'denied', 'ana', T0);
    const b = {
      plan_sig: a.plan_sig,
      timestamp: a.timestamp,
      approved_by: 'ana',
      decision: 'denied' as const,
      id: a.id,
    };
    expect(sameDecision(a, b)).toBe(true);
    expect(sameDecision(a, { ...b, reason: 'no' })).toBe(false);
  });
});

// A pure corpus: thousands of spoiled decisions, single and stacked mutations, none of which may pass.
describe('checkDecision on a generated corpus', () => {
  it('never accepts a spoiled decision, and names the problem', () => {
    const rng = createRng(0x5eed);
    let cases = 0;
    for (let i = 0; i < 3000; i++) {
      const request = sampleRequest(rng, `req_${i}`, T0);
      const valid = validDecision(request, rng.pick(['approved', 'approved', 'denied', 'expired'] as const), 'ana', T0);
      expect(checkDecisionText(JSON.stringify(valid), request.id, request).ok).toBe(true);
      const mutation = rng.pick(mutationsFor(request));
      const text = mutate(rng, mutation, request, valid);
      const check = checkDecisionText(text, request.id, request);
      expect(check.ok, `${mutation.name}: ${text}`).toBe(false);
      expect(check.ok ? '' : check.problem, mutation.name).toContain(mutation.expect);
      // Stack a second record mutation on the first: spoiling twice never repairs.
      const second = rng.pick(mutationsFor(request).filter((m) => m.record !== undefined));
      if (mutation.record !== undefined && second.record !== undefined) {
        const once = mutation.record(rng, request, valid);
        const twice = second.record(rng, request, once as typeof valid);
        expect(checkDecision(twice, request.id, request).ok, `${mutation.name}+${second.name}`).toBe(false);
      }
      cases++;
    }
    expect(cases).toBe(3000);
  });
});
