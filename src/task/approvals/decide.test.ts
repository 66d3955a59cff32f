import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import type { ApprovalRequest } from '../contracts/approvals.ts';
import { decide } from './decide.ts';
import { createFileBroker } from './file-broker.ts';
import { createRng, sampleRequest } from '../../../test/support/decision-corpus.ts';

const T0 = Date.parse('2025-01-01T12:00:00Z');
const now = () => T0 + 60_000;
let root: string;
let progress: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'agency-decide-'));
  progress = path.join(root, 'progress');
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const rng = createRng(11);
function requestOf(type: 'plan' | 'tool', id: string): ApprovalRequest {
  for (;;) {
    const request = sampleRequest(rng, id, T0);
    if (request.type === type) return request;
  }
}
const decisionFile = (id: string) => path.join(progress, 'approvals', 'decisions', `${id}.json`);

describe('decide', () => {
  it('copies plan_sig from a plan request and the broker acts on the result', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now, pollMs: 5 });
    const request = requestOf('plan', 'req_p');
    await broker.submit(request);
    const written = await decide(progress, request.id, 'approved', { by: 'ana@example.com', reason: 'fine', now });
    expect(written).toEqual({
      id: 'req_p',
      decision: 'approved',
      approved_by: 'ana@example.com',
      timestamp: '2025-01-01T12:01:00.000Z',
      plan_sig: request.type === 'plan' ? request.plan_sig : '',
      reason: 'fine',
    });
    expect(JSON.parse(await readFile(decisionFile(request.id), 'utf8'))).toEqual(written);
    expect(await readdir(path.dirname(decisionFile(request.id)))).toEqual(['req_p.json']);
    expect(await broker.await(request.id)).toEqual({
      decision: 'approved',
      decidedBy: 'ana@example.com',
      at: '2025-01-01T12:01:00.000Z',
      reason: 'fine',
    });
  });

  it('copies args_digest (and plan_sig, when there is one) from a tool request', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now });
    const request = requestOf('tool', 'req_t');
    await broker.submit(request);
    const written = await decide(progress, request.id, 'denied', { by: 'bo', now });
    if (request.type !== 'tool') throw new Error('unreachable');
    expect(written.args_digest).toBe(request.args_digest);
    expect(written.plan_sig).toBe(request.plan_sig ?? undefined);
    expect((await broker.get(request.id)).decision).toEqual(written);
  });

  it('is idempotent for the same decision and refuses to change it', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now });
    const request = requestOf('plan', 'req_twice');
    await broker.submit(request);
    const first = await decide(progress, request.id, 'approved', { by: 'ana', now });
    expect(await decide(progress, request.id, 'approved', { by: 'someone else', now: () => T0 })).toEqual(first);
    await expect(decide(progress, request.id, 'denied', { by: 'bo', now })).rejects.toSatisfy(
      (error) =>
        AgencyError.hasCode(error, 'approval_invalid') &&
        error.message ===
          'progress/approvals/decisions/req_twice.json: req_twice was already approved by ana at ' +
            '2025-01-01T12:01:00.000Z; a decision cannot be changed (the first one stands)',
    );
    expect(JSON.parse(await readFile(decisionFile(request.id), 'utf8'))).toEqual(first);
  });

  it('replaces a decision file that was never valid', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now });
    const request = requestOf('plan', 'req_fix');
    await broker.submit(request);
    await writeFile(decisionFile(request.id), '{"id": "req_fix", "decision": "approved"}');
    const written = await decide(progress, request.id, 'approved', { by: 'ana', now });
    expect((await broker.get(request.id)).decision).toEqual(written);
  });

  it('says approval_not_found for an unknown id and approval_invalid for an empty name', async () => {
    await expect(decide(progress, 'req_ghost', 'approved', { by: 'ana' })).rejects.toSatisfy(
      (error) => AgencyError.hasCode(error, 'approval_not_found') && error.message.includes('req_ghost.json'),
    );
    const broker = createFileBroker(progress, { mode: 'file', now });
    await broker.submit(requestOf('plan', 'req_anon'));
    await expect(decide(progress, 'req_anon', 'approved', { by: '  ' })).rejects.toSatisfy((error) =>
      AgencyError.hasCode(error, 'approval_invalid'),
    );
  });
});
