import { describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import type { ApprovalRequest } from '../contracts/approvals.ts';
import type { InvalidDecision } from './broker.ts';
import { createInMemoryBroker } from './in-memory-broker.ts';
import { createRng, sampleRequest, validDecision } from '../../../test/support/decision-corpus.ts';

const T0 = Date.parse('2025-01-01T12:00:00Z');
const rng = createRng(5);
function requestOf(type: 'plan' | 'tool', id: string): ApprovalRequest {
  for (;;) {
    const request = sampleRequest(rng, id, T0);
    if (request.type === type) return request;
  }
}

describe('InMemoryBroker', () => {
  it('resolves on a valid decision and reports invalid ones while it waits', async () => {
    const broker = createInMemoryBroker({ now: () => T0 });
    const request = requestOf('plan', 'req_a');
    await broker.submit(request);
    await broker.submit({ ...request });
    const reports: InvalidDecision[] = [];
    const waiting = broker.await(request.id, { onInvalid: (bad) => reports.push(bad) });
    const stale = { ...validDecision(request, 'approved', 'ana', T0), plan_sig: 'e'.repeat(64) };
    expect(broker.decide(request.id, stale)?.problem).toContain('does not match the current plan');
    expect(broker.decide(request.id, '{"id": "req_a"')?.problem).toContain('not valid JSON');
    broker.decide(request.id, stale);
    expect(await broker.pending()).toEqual([request]);
    expect(broker.decide(request.id, validDecision(request, 'approved', 'ana', T0))).toBeUndefined();
    expect(await waiting).toMatchObject({ decision: 'approved', decidedBy: 'ana' });
    expect(reports.map((bad) => bad.file)).toEqual([
      'progress/approvals/decisions/req_a.json',
      'progress/approvals/decisions/req_a.json',
    ]);
    expect(await broker.pending()).toEqual([]);
  });

  it('lets the first decision stand', async () => {
    const broker = createInMemoryBroker({ now: () => T0 });
    const request = requestOf('tool', 'req_b');
    await broker.submit(request);
    broker.decide(request.id, validDecision(request, 'denied', 'ana', T0));
    expect(broker.decide(request.id, validDecision(request, 'denied', 'ana', T0))).toBeUndefined();
    expect(broker.decide(request.id, validDecision(request, 'approved', 'bo', T0))?.problem).toContain('conflicting');
    expect((await broker.await(request.id)).decision).toBe('denied');
    expect((await broker.get(request.id)).decision?.decision).toBe('denied');
  });

  it('refuses a different request under the same id, decisions for unknown requests, and unknown awaits', async () => {
    const broker = createInMemoryBroker();
    const request = requestOf('plan', 'req_c');
    await broker.submit(request);
    await expect(broker.submit({ ...request, rationale: 'x' })).rejects.toSatisfy((error) =>
      AgencyError.hasCode(error, 'invalid_argument'),
    );
    const other = requestOf('plan', 'req_other');
    expect(broker.decide(other.id, validDecision(other, 'approved', 'ana', T0))?.problem).toContain('no request');
    await expect(broker.await(other.id)).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'approval_not_found'));
  });

  it('expires at expires_at, auto-approves in auto mode, and honours abort', async () => {
    let clock = T0;
    const broker = createInMemoryBroker({ now: () => clock, pollMs: 2 });
    const request = requestOf('plan', 'req_d');
    await broker.submit(request);
    const waiting = broker.await(request.id);
    clock = Date.parse(request.expires_at);
    expect(await waiting).toMatchObject({ decision: 'expired', decidedBy: 'agency' });

    const auto = createInMemoryBroker({ mode: 'auto' });
    await auto.submit(request);
    expect(await auto.await(request.id)).toMatchObject({ decision: 'approved', decidedBy: 'auto' });
    expect((await auto.get(request.id)).decision?.plan_sig).toBe(request.plan_sig);

    const other = createInMemoryBroker({ now: () => T0 });
    await other.submit(request);
    const controller = new AbortController();
    const aborted = other.await(request.id, { signal: controller.signal });
    controller.abort();
    await expect(aborted).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'aborted'));
  });
});
