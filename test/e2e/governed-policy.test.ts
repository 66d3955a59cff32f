// One governance engine: the spec's approval settings are rules of the run's policy, and the policy is asked about
// plans, tool calls and memory writes in a governed run, with one order: deny beats approval beats allow.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createInMemoryMemoryStore } from '../../src/memory/in-memory-memory-store.ts';
import { createMemoryManager } from '../../src/memory/memory-manager.ts';
import { memoryWriteFilter } from '../../src/policy/content-filter.ts';
import { createPolicy } from '../../src/policy/create-policy.ts';
import type { PolicyRule } from '../../src/policy/policy-types.ts';
import { strictPolicy } from '../../src/policy/presets.ts';
import { requirePlanApproval, toolDenylist } from '../../src/policy/tool-rules.ts';
import type { EventFrame } from '../../src/task/contracts/events.ts';
import { type Plan, planSchema, signPlan } from '../../src/task/contracts/plan.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import { createRunner } from '../../src/task/runner.ts';
import { FIXTURE_PLAN, fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}

async function requests(root: string): Promise<Array<Record<string, unknown>>> {
  const dir = join(root, 'progress', 'approvals', 'requests');
  const files = await readdir(dir).catch(() => []);
  return Promise.all(files.map(async (file) => JSON.parse(await readFile(join(dir, file), 'utf8')) as never));
}

const policyFrames = (journal: EventFrame[], type: 'policy.blocked' | 'policy.modified') =>
  journal.filter((frame) => frame.type === type).map((frame) => frame.data);

const denyWritingPlans: PolicyRule = {
  id: 'no-writing-plans',
  check: (request) =>
    request.kind === 'plan' && (request.plan as Plan).allowed_tools.includes('write_artifact')
      ? { effect: 'deny', reason: 'plans may not write artifacts today' }
      : undefined,
};

const tagPlans: PolicyRule = {
  id: 'tag-plans',
  check: (request) => {
    if (request.kind !== 'plan') return undefined;
    const plan = request.plan as Plan;
    if (plan.goal.endsWith('(reviewed)')) return undefined;
    return { effect: 'modify', patch: { ...plan, goal: `${plan.goal} (reviewed)` }, reason: 'tags the goal' };
  },
};

describe('the plan goes through the policy', () => {
  it('stops the run when a rule denies the plan: deny beats the approval the spec requires, and nothing acts', async () => {
    const root = await makeTaskFolder();
    const calls: string[] = [];
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'auto',
      policy: createPolicy({ rules: [denyWritingPlans] }),
    }).doTask(root, { approvals: { requirePlan: true } });
    expect(result.finishReason).toBe('approval.denied');
    expect(calls.filter((call) => call.startsWith('write_artifact'))).toEqual([]);
    const journal = await frames(root);
    expect(policyFrames(journal, 'policy.blocked')).toEqual([
      { rule_id: 'no-writing-plans', kind: 'plan', target: 'plan', reason: 'plans may not write artifacts today' },
    ]);
    expect(await requests(root)).toEqual([]);
    expect(journal.some((frame) => frame.type === 'approval.requested')).toBe(false);
  });

  it('signs, writes and acts on the plan as a rule changed it', async () => {
    const root = await makeTaskFolder();
    const model = phaseModel();
    const result = await createRunner({
      model,
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      policy: createPolicy({ rules: [tagPlans] }),
    }).doTask(root);
    expect(result.finishReason).toBe('completed');
    const plan = planSchema.parse(JSON.parse(await readFile(join(root, 'progress', 'plan', '0001.json'), 'utf8')));
    expect(plan.goal).toBe(`${FIXTURE_PLAN.goal} (reviewed)`);
    expect(result.planSig).toBe(signPlan(plan));
    const journal = await frames(root);
    expect(journal.find((frame) => frame.type === 'plan.proposed')?.data).toMatchObject({ plan_sig: signPlan(plan) });
    expect(policyFrames(journal, 'policy.modified')).toEqual([
      { rule_id: 'tag-plans', kind: 'plan', target: 'plan', reason: 'tags the goal' },
    ]);
    const [request] = await requests(root);
    expect(request).toMatchObject({ type: 'plan', plan_sig: signPlan(plan) });
    const act = model.calls.find((call) => JSON.stringify(call.options.prompt).includes('Phase: ACT'));
    expect(JSON.stringify(act?.options.prompt)).toContain('(reviewed)');
  });

  it("asks for plan approval when the operator's strict policy requires it, even with requirePlan: false", async () => {
    const root = await makeTaskFolder();
    await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      policy: strictPolicy(),
    }).doTask(root, { approvals: { requirePlan: false } });
    const journal = await frames(root);
    const plan = planSchema.parse(JSON.parse(await readFile(join(root, 'progress', 'plan', '0001.json'), 'utf8')));
    expect(await requests(root)).toContainEqual(
      expect.objectContaining({
        type: 'plan',
        plan_sig: signPlan(plan),
        rationale: expect.stringContaining('plan-approval'),
      }),
    );
    expect(journal.find((frame) => frame.type === 'approval.decided')?.data).toMatchObject({
      type: 'plan',
      decision: 'approved',
      by: 'auto',
    });
    const approveStep = journal.find(
      (frame) => frame.type === 'phase.finish' && frame.step?.endsWith('approve-plan-v1'),
    );
    expect(approveStep?.data?.output).toEqual({ decision: 'approved', by: 'auto' });
  });

  it('approves the plan without a request when neither the spec nor the operator asks for approval', async () => {
    const root = await makeTaskFolder();
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'file',
    }).doTask(root, { approvals: { requirePlan: false } });
    expect(result.finishReason).toBe('completed');
    expect(await requests(root)).toEqual([]);
  });
});

describe('tool calls: the spec and the operator decide in one place', () => {
  it("asks for a require_tools approval through the policy, naming the spec's rule", async () => {
    const root = await makeTaskFolder();
    await createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(root, {
      approvals: { requireTools: ['write_artifact'] },
    });
    expect(await requests(root)).toContainEqual(
      expect.objectContaining({
        type: 'tool',
        tool_name: 'write_artifact',
        rationale: expect.stringContaining('spec:require-tools'),
      }),
    );
  });

  it('denies a tool the operator forbids without asking for the approval the spec requires', async () => {
    const root = await makeTaskFolder();
    const calls: string[] = [];
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'auto',
      policy: createPolicy({ rules: [toolDenylist(['write_artifact'])] }),
    }).doTask(root, { approvals: { requireTools: ['write_artifact'] } });
    expect(result.finishReason).not.toBe('completed');
    expect(calls).not.toContain('write_artifact:summary.md');
    expect((await requests(root)).filter((request) => request.type === 'tool')).toEqual([]);
    expect(policyFrames(await frames(root), 'policy.blocked')).toContainEqual(
      expect.objectContaining({ rule_id: 'tool-denylist', target: 'write_artifact' }),
    );
  });

  it('holds the plan → act → reflect loop to the same policy', async () => {
    const root = await makeTaskFolder();
    let proposals = 0;
    const model = phaseModel({
      other: () =>
        ++proposals === 1
          ? JSON.stringify({ type: 'tool', toolId: 'write_artifact', input: { name: 'summary.md', text: 's' } })
          : JSON.stringify({ type: 'finish', message: 'Done.' }),
    });
    const calls: string[] = [];
    await createRunner({
      model,
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'auto',
      policy: createPolicy({ rules: [toolDenylist(['write_artifact'])] }),
    }).doTask(root, { loop: 'plan-act-reflect', approvals: { requireTools: ['write_artifact'] } });
    expect(calls).toEqual([]);
    expect(await requests(root)).toEqual([]);
    expect(policyFrames(await frames(root), 'policy.blocked')).toContainEqual(
      expect.objectContaining({ rule_id: 'tool-denylist', target: 'write_artifact' }),
    );
  });
});

describe('memory writes go through the policy', () => {
  const agentScope = { kind: 'agent' as const, id: 'governed' };

  it('drops a denied write and stores a changed one, journaling both', async () => {
    const store = createInMemoryMemoryStore();
    const root = await makeTaskFolder();
    const policy = createPolicy({
      rules: [
        memoryWriteFilter({ id: 'no-agent-learnings', patterns: [/./], action: 'block', scopes: ['agent:*'] }),
        memoryWriteFilter({ id: 'hide-paths', patterns: [/artifacts\/summary\.md/], action: 'redact' }),
      ],
    });
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      policy,
      memory: ({ taskId, onEvent, redact }) =>
        createMemoryManager({ store, channels: { agent: agentScope.id, task: taskId }, onEvent, redact }),
    }).doTask(root);
    expect(result.finishReason).toBe('completed');
    expect(await store.query([agentScope], { topK: 5 })).toEqual([]);
    const [learned] = await store.query([{ kind: 'task', id: result.taskId }], { topK: 5 });
    expect(learned?.text).toBe('Wrote [REDACTED:hide-paths].');
    const journal = await frames(root);
    expect(policyFrames(journal, 'policy.blocked')).toContainEqual(
      expect.objectContaining({ rule_id: 'no-agent-learnings', kind: 'memory-write', target: 'memory:agent:governed' }),
    );
    expect(policyFrames(journal, 'policy.modified')).toContainEqual(
      expect.objectContaining({ rule_id: 'hide-paths', kind: 'memory-write', target: `memory:task:${result.taskId}` }),
    );
    expect(journal.filter((frame) => frame.type === 'memory.write').map((frame) => frame.data?.scopes)).toEqual([
      [`task:${result.taskId}`],
    ]);
  });

  it('applies the policy to a memory manager passed in ready-made too', async () => {
    const store = createInMemoryMemoryStore();
    const root = await makeTaskFolder();
    const memory = createMemoryManager({ store, channels: { agent: agentScope.id } });
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      policy: createPolicy({ rules: [memoryWriteFilter({ id: 'no-memory', patterns: [/./], action: 'block' })] }),
      memory,
    }).doTask(root);
    expect(result.finishReason).toBe('completed');
    expect(await store.query([agentScope, { kind: 'task', id: result.taskId }], { topK: 5 })).toEqual([]);
    expect(policyFrames(await frames(root), 'policy.blocked')).toHaveLength(2);
  });

  it('refuses a memory write that a rule would send for approval: a write cannot wait', async () => {
    const store = createInMemoryMemoryStore();
    const root = await makeTaskFolder();
    const approveMemory: PolicyRule = {
      id: 'approve-memory',
      check: (request) =>
        request.kind === 'memory-write' ? { effect: 'require-approval', reason: 'memory needs review' } : undefined,
    };
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      policy: createPolicy({ rules: [approveMemory, requirePlanApproval({ id: 'plans' })] }),
      memory: ({ taskId, onEvent }) => createMemoryManager({ store, channels: { task: taskId }, onEvent }),
    }).doTask(root);
    expect(await store.query([{ kind: 'task', id: result.taskId }], { topK: 5 })).toEqual([]);
    expect(policyFrames(await frames(root), 'policy.blocked')).toContainEqual(
      expect.objectContaining({ rule_id: 'approve-memory', kind: 'memory-write' }),
    );
  });
});

describe("the operator's opt-outs", () => {
  it('journals each warning right after the run starts, and returns it in the result', async () => {
    const root = await makeTaskFolder();
    const warning = 'The operator chose a permissive policy';
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      warnings: [warning],
    }).doTask(root, {}, { view: 'full' });
    const journal = await frames(root);
    expect(journal.slice(0, 2).map((frame) => [frame.type, frame.message])).toEqual([
      ['run.started', expect.any(String)],
      ['warning', warning],
    ]);
    expect(result.warnings).toContain(warning);
  });
});
