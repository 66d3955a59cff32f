import { mkdir, mkdtemp, open, readdir, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgencyError } from '../../core/errors.ts';
import type { ApprovalDecision, ApprovalRequest } from '../contracts/approvals.ts';
import type { InvalidDecision } from './broker.ts';
import { createFileBroker } from './file-broker.ts';
import { nodeDurableFs } from '../fs/durable-fs.ts';
import { createFsSpy, osError } from '../../../test/support/fs-spy.ts';
import { createRng, sampleRequest, validDecision } from '../../../test/support/decision-corpus.ts';

const T0 = Date.parse('2025-01-01T12:00:00Z');
let root: string;
let progress: string;
let clock: number;
const now = () => clock;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'agency-broker-'));
  progress = path.join(root, 'progress');
  clock = T0;
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const rng = createRng(7);
const requestOf = (type: 'plan' | 'tool', id: string): ApprovalRequest => {
  for (;;) {
    const request = sampleRequest(rng, id, T0);
    if (request.type === type) return request;
  }
};
const planRequest = (id = 'req_plan1') => requestOf('plan', id);
const toolRequest = (id = 'req_tool1') => requestOf('tool', id);
const decisionPath = (id: string) => path.join(progress, 'approvals', 'decisions', `${id}.json`);
const requestPath = (id: string) => path.join(progress, 'approvals', 'requests', `${id}.json`);
async function writeDecision(id: string, value: ApprovalDecision | string) {
  const temp = `${decisionPath(id)}.partial`;
  await writeFile(temp, typeof value === 'string' ? value : JSON.stringify(value));
  await rename(temp, decisionPath(id));
}
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('FileBroker.submit', () => {
  it('writes the request file atomically and leaves no temp files', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now });
    const request = planRequest();
    await broker.submit(request);
    expect(JSON.parse(await readFile(requestPath(request.id), 'utf8'))).toEqual(request);
    expect(await readdir(path.dirname(requestPath(request.id)))).toEqual([`${request.id}.json`]);
  });

  it('is idempotent for the same request and refuses a different one under the same id', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now });
    const request = planRequest();
    await broker.submit(request);
    await broker.submit({ ...request });
    await expect(broker.submit({ ...request, rationale: 'other' })).rejects.toSatisfy(
      (error) =>
        AgencyError.hasCode(error, 'invalid_argument') && /a different request already has id/.test(error.message),
    );
    expect(JSON.parse(await readFile(requestPath(request.id), 'utf8'))).toEqual(request);
  });

  it('refuses malformed requests and ids that are not safe file names', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now });
    const bad = { ...planRequest(), plan_sig: 'nope' };
    await expect(broker.submit(bad)).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'invalid_argument'));
    await expect(broker.submit({ ...planRequest(), id: 'req_../../escape' })).rejects.toSatisfy((error) =>
      AgencyError.hasCode(error, 'invalid_argument'),
    );
  });

  it('surfaces a failing write', async () => {
    const spy = createFsSpy(nodeDurableFs, {
      fault: (call) => (call.op === 'write' ? osError('ENOSPC', 'write') : undefined),
    });
    const broker = createFileBroker(progress, { mode: 'file', now, fs: spy.fs });
    await expect(broker.submit(planRequest())).rejects.toThrow('no space left');
  });

  it('never writes or reads through a link planted in its folder', async () => {
    const outside = path.join(root, 'outside');
    await mkdir(outside);
    await mkdir(path.join(progress, 'approvals'), { recursive: true });
    await symlink(outside, path.join(progress, 'approvals', 'requests'));
    const broker = createFileBroker(progress, { mode: 'file', now });
    await expect(broker.submit(planRequest())).rejects.toSatisfy((error) =>
      AgencyError.hasCode(error, 'path_symlink_escape'),
    );
    expect(await readdir(outside)).toEqual([]);
  });
});

describe('FileBroker.await', () => {
  it('acts on a valid decision written before or after it starts watching', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now, pollMs: 5 });
    const [early, late] = [planRequest('req_early'), toolRequest('req_late')];
    await broker.submit(early);
    await broker.submit(late);
    await writeDecision(early.id, validDecision(early, 'approved', 'ana', T0));
    expect(await broker.await(early.id)).toEqual({
      decision: 'approved',
      decidedBy: 'ana',
      at: '2025-01-01T12:00:00.000Z',
    });
    const waiting = broker.await(late.id);
    await sleep(20);
    await writeDecision(late.id, { ...validDecision(late, 'denied', 'bo', T0), reason: 'too risky' });
    expect(await waiting).toMatchObject({ decision: 'denied', decidedBy: 'bo', reason: 'too risky' });
  });

  it('reports an invalid file once, keeps waiting, then takes the valid one', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now, pollMs: 5 });
    const request = planRequest();
    await broker.submit(request);
    const reports: InvalidDecision[] = [];
    let settled = false;
    const waiting = broker.await(request.id, { onInvalid: (invalid) => reports.push(invalid) });
    void waiting.then(() => (settled = true));
    await writeDecision(request.id, { ...validDecision(request, 'approved', 'ana', T0), plan_sig: 'f'.repeat(64) });
    await sleep(80);
    expect(settled).toBe(false);
    expect(reports).toEqual([
      {
        id: request.id,
        file: `progress/approvals/decisions/${request.id}.json`,
        problem: expect.stringContaining('does not match the current plan'),
      },
    ]);
    await writeDecision(request.id, validDecision(request, 'approved', 'ana', T0));
    expect((await waiting).decision).toBe('approved');
  });

  it('does not report a file that a writer is still writing, and acts once it is complete', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now, pollMs: 1_000 });
    const request = toolRequest();
    await broker.submit(request);
    const reports: InvalidDecision[] = [];
    const waiting = broker.await(request.id, { onInvalid: (bad) => reports.push(bad) });
    await sleep(10);
    const text = JSON.stringify(validDecision(request, 'approved', 'ana', T0), null, 2);
    const handle = await open(decisionPath(request.id), 'w');
    for (let at = 0; at < text.length; at += 16) {
      await handle.write(text.slice(at, at + 16));
      await sleep(1);
    }
    await handle.close();
    expect((await waiting).decision).toBe('approved');
    expect(reports).toEqual([]);
  });

  it('expires at expires_at and records the expiry in the decision file', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now, pollMs: 5 });
    const request = toolRequest();
    await broker.submit(request);
    const waiting = broker.await(request.id);
    await sleep(15);
    clock = Date.parse(request.expires_at);
    expect(await waiting).toMatchObject({ decision: 'expired', decidedBy: 'agency' });
    const file = JSON.parse(await readFile(decisionPath(request.id), 'utf8')) as ApprovalDecision;
    expect(file).toMatchObject({
      decision: 'expired',
      approved_by: 'agency',
      args_digest: request.type === 'tool' ? request.args_digest : '',
    });
    expect((await broker.get(request.id)).decision).toEqual(file);
  });

  it('reports an invalid file before replacing it with the expiry record', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now, pollMs: 5 });
    const request = planRequest();
    await broker.submit(request);
    await writeDecision(request.id, '{"decision": "approved"');
    clock = Date.parse(request.expires_at) + 1;
    const reports: InvalidDecision[] = [];
    expect((await broker.await(request.id, { onInvalid: (bad) => reports.push(bad) })).decision).toBe('expired');
    expect(reports.map((bad) => bad.problem)).toEqual([expect.stringContaining('not valid JSON')]);
  });

  it('stops on abort without writing a decision', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now, pollMs: 5 });
    const request = planRequest();
    await broker.submit(request);
    const controller = new AbortController();
    const waiting = broker.await(request.id, { signal: controller.signal });
    await sleep(10);
    controller.abort();
    await expect(waiting).rejects.toSatisfy((error) => AgencyError.hasCode(error, 'aborted'));
    await expect(readFile(decisionPath(request.id))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('says approval_not_found for an id that was never submitted', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now });
    await expect(broker.await('req_nothing')).rejects.toSatisfy((error) =>
      AgencyError.hasCode(error, 'approval_not_found'),
    );
  });

  it('lets the first decision stand and reports a later, different one as conflicting', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now, pollMs: 5 });
    const request = planRequest();
    await broker.submit(request);
    await writeDecision(request.id, validDecision(request, 'approved', 'ana', T0));
    expect((await broker.await(request.id)).decision).toBe('approved');
    const reports: InvalidDecision[] = [];
    await writeDecision(request.id, validDecision(request, 'approved', 'ana', T0));
    expect((await broker.await(request.id, { onInvalid: (bad) => reports.push(bad) })).decision).toBe('approved');
    expect(reports).toEqual([]);
    await writeDecision(request.id, validDecision(request, 'denied', 'bo', T0));
    expect((await broker.await(request.id, { onInvalid: (bad) => reports.push(bad) })).decision).toBe('approved');
    expect(reports.map((bad) => bad.problem)).toEqual([expect.stringContaining('conflicting decision')]);
    expect(await broker.get(request.id)).toMatchObject({
      decision: { decision: 'approved' },
      invalid: { id: request.id },
    });
  });
});

describe('FileBroker in auto mode', () => {
  it('approves at once and writes both files, bound to the plan or the arguments', async () => {
    const broker = createFileBroker(progress, { mode: 'auto', now, pollMs: 5 });
    for (const request of [planRequest(), toolRequest()]) {
      await broker.submit(request);
      expect(await broker.await(request.id)).toMatchObject({ decision: 'approved', decidedBy: 'auto' });
      const file = JSON.parse(await readFile(decisionPath(request.id), 'utf8')) as ApprovalDecision;
      const binding = request.type === 'plan' ? { plan_sig: request.plan_sig } : { args_digest: request.args_digest };
      expect(file).toMatchObject({ id: request.id, decision: 'approved', approved_by: 'auto', ...binding });
      await expect(readFile(requestPath(request.id), 'utf8')).resolves.toContain(request.id);
    }
  });

  it('does not override a decision a human already wrote', async () => {
    const broker = createFileBroker(progress, { mode: 'auto', now, pollMs: 5 });
    const request = planRequest();
    await broker.submit(request);
    await writeDecision(request.id, validDecision(request, 'denied', 'ana', T0));
    expect((await broker.await(request.id)).decision).toBe('denied');
  });
});

describe('FileBroker.pending and get', () => {
  it('lists requests with no valid decision and says what is wrong with an invalid one', async () => {
    const broker = createFileBroker(progress, { mode: 'file', now });
    const [a, b, c] = [planRequest('req_a'), planRequest('req_b'), toolRequest('req_c')];
    for (const request of [a, b, c]) await broker.submit(request);
    await writeDecision(a.id, validDecision(a, 'approved', 'ana', T0));
    await writeDecision(b.id, { ...validDecision(b, 'approved', 'ana', T0), approved_by: '' });
    expect((await broker.pending()).map((request) => request.id)).toEqual(['req_b', 'req_c']);
    expect(await broker.get(b.id)).toEqual({
      request: b,
      invalid: {
        id: 'req_b',
        file: 'progress/approvals/decisions/req_b.json',
        problem: expect.stringContaining('"approved_by"'),
      },
    });
    expect(await broker.get('req_none')).toEqual({});
  });
});
