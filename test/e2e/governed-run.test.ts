import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LanguageModelV4CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { approvalDecisionSchema, approvalRequestSchema } from '../../src/task/contracts/approvals.ts';
import { eventFrameSchema, type EventFrame } from '../../src/task/contracts/events.ts';
import { planSchema, signPlan } from '../../src/task/contracts/plan.ts';
import { specSchema } from '../../src/task/contracts/spec.ts';
import { stateSchema } from '../../src/task/contracts/state.ts';
import { verifyReportSchema } from '../../src/task/contracts/verify-report.ts';
import { foldJournal } from '../../src/task/journal-fold.ts';
import { readJournal } from '../../src/task/journal/read-journal.ts';
import type { LoopContext } from '../../src/task/loop.ts';
import { createRunner } from '../../src/task/runner.ts';
import { FIXTURE_PLAN, fixtureTools, makeTaskFolder, phaseModel } from '../support/governed-fixture.ts';

async function json(path: string): Promise<unknown> {
  return JSON.parse(await readFile(path, 'utf8'));
}

async function frames(root: string): Promise<EventFrame[]> {
  return (await readJournal(join(root, 'progress', 'events.ndjson'))).frames;
}

describe('a governed run, end to end', () => {
  it('leaves a complete, schema-valid paper trail', async () => {
    const root = await makeTaskFolder();
    const calls: string[] = [];
    const runner = createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'auto',
    });
    const result = await runner.doTask(root, {}, { view: 'full' });
    expect(result).toMatchObject({ finishReason: 'completed', verified: true, loopName: 'gather-plan-act-verify' });
    expect(calls).toEqual(['read_input:input.txt', 'write_artifact:summary.md']);

    const progress = join(root, 'progress');
    const spec = specSchema.parse(await json(join(progress, 'spec.json')));
    expect(spec.task_id).toBe(result.taskId);
    const state = stateSchema.parse(await json(join(progress, 'state.json')));
    expect(state).toMatchObject({ status: 'completed', finish_reason: 'completed', phase: 'done' });

    const journal = await frames(root);
    for (const frame of journal) eventFrameSchema.parse(frame);
    expect(journal.map((frame) => frame.seq)).toEqual(journal.map((_, index) => index + 1));
    expect(journal.at(-1)).toMatchObject({
      type: 'finish',
      data: { reason: 'completed' },
      budgets_remaining: expect.any(Object),
    });
    expect(
      journal
        .filter((frame) => frame.type === 'usage.delta')
        .every((frame) => frame.usage_delta && frame.budgets_remaining),
    ).toBe(true);

    // The plan is versioned and signed; the signature in the state is the plan's JCS SHA-256.
    const plan = planSchema.parse(await json(join(progress, 'plan', '0001.json')));
    expect(await json(join(progress, 'plan', 'current.json'))).toEqual(plan);
    expect(plan).toEqual({ version: 'plan.v1', ...FIXTURE_PLAN });
    expect(state.approved_plan_sig).toBe(signPlan(plan));
    expect(result.planSig).toBe(signPlan(plan));

    // Auto mode still writes both approval files.
    const [request] = await readdir(join(progress, 'approvals', 'requests'));
    const parsedRequest = approvalRequestSchema.parse(
      await json(join(progress, 'approvals', 'requests', request as string)),
    );
    const decision = approvalDecisionSchema.parse(
      await json(join(progress, 'approvals', 'decisions', request as string)),
    );
    expect(parsedRequest).toMatchObject({ type: 'plan', plan_sig: signPlan(plan) });
    expect(decision).toMatchObject({ decision: 'approved', approved_by: 'auto', plan_sig: signPlan(plan) });

    const report = verifyReportSchema.parse(await json(join(progress, 'verify', '0001-report.json')));
    expect(report).toMatchObject({ passed: true, attempt: 1, plan_sig: signPlan(plan) });
    expect(report.criteria[0]).toMatchObject({ id: 'a1', passed: true, methods: ['file_exists', 'model'] });

    expect(result.deliverables).toEqual([
      expect.objectContaining({
        path: 'progress/artifacts/summary.md',
        size: 60,
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
    expect(await readFile(join(progress, 'findings.md'), 'utf8')).toContain('Agency runs governed agents');
    expect(await readFile(join(progress, 'todo.md'), 'utf8')).toContain('- [x] Write the summary');
    expect(await readFile(join(progress, 'notes.md'), 'utf8')).toMatch(/finished: completed/);
    expect(await readFile(join(root, 'task', 'input.txt'), 'utf8')).toContain('Agency'); // task/ untouched
    expect(result.steps?.map((step) => step.name)).toEqual([
      'gather',
      'record-findings',
      'plan',
      'write-plan',
      'approve-plan-v1',
      'act',
      'verify-checks-1',
      'verify-1',
      'verify-report-1',
    ]);
  });

  it('agrees with its journal: state.json is the fold of the events', async () => {
    const root = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    expect(await runner.doTask(root)).toMatchObject({ finishReason: 'completed' });
    const state = stateSchema.parse(await json(join(root, 'progress', 'state.json')));
    const fold = foldJournal(await frames(root), state.last_seq);
    expect(state.last_seq).toBe(fold.lastSeq);
    expect(state.usage.total_tokens).toBe(fold.usage.totalTokens);
    expect(state.plan_sig).toBe(fold.planSig);
    expect(state.approved_plan_sig).toBe(fold.approvedPlanSig);
    expect(state.finish_reason).toBe(fold.finishReason);
  });

  it('keeps the prompt prefix (system, pinned memory, tool definitions) byte-stable across every model call', async () => {
    const root = await makeTaskFolder();
    const model = phaseModel();
    await createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(root);
    expect(model.calls.length).toBe(6);
    const prefixes = model.calls.map((call) =>
      JSON.stringify({
        system: call.options.prompt.filter((message) => message.role === 'system'),
        tools: call.options.tools,
      }),
    );
    expect(new Set(prefixes).size).toBe(1);
  });
});

describe('plan approval by hand', () => {
  it('waits for a decision file; an approval lets the run go on', async () => {
    const root = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'file' });
    const seen: EventFrame[] = [];
    runner.subscribe((frame) => {
      seen.push(frame);
      if (frame.type === 'approval.requested') {
        const { id, plan_sig } = frame.data as { id: string; plan_sig: string };
        // A stale decision first (wrong plan_sig), then a valid one.
        void writeFile(
          join(root, 'progress', 'approvals', 'decisions', `${id}.json`),
          JSON.stringify({
            id,
            decision: 'approved',
            approved_by: 'ana',
            timestamp: new Date().toISOString(),
            plan_sig: 'f'.repeat(64),
          }),
        ).then(() =>
          new Promise((resolve) => setTimeout(resolve, 300)).then(() =>
            writeFile(
              join(root, 'progress', 'approvals', 'decisions', `${id}.json`),
              JSON.stringify({
                id,
                decision: 'approved',
                approved_by: 'ana',
                timestamp: new Date().toISOString(),
                plan_sig,
              }),
            ),
          ),
        );
      }
    });
    const result = await runner.doTask(root);
    expect(result.finishReason).toBe('completed');
    expect(seen.some((frame) => frame.type === 'approval.invalid' && /plan_sig/.test(frame.message ?? ''))).toBe(true);
    expect(seen.find((frame) => frame.type === 'approval.decided')).toMatchObject({
      data: { decision: 'approved', by: 'ana' },
    });
  });

  it('stops with approval.denied when the plan is denied, before any tool with effects runs', async () => {
    const root = await makeTaskFolder();
    const calls: string[] = [];
    const runner = createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'file',
    });
    runner.subscribe((frame) => {
      if (frame.type !== 'approval.requested') return;
      const { id, plan_sig } = frame.data as { id: string; plan_sig: string };
      void writeFile(
        join(root, 'progress', 'approvals', 'decisions', `${id}.json`),
        JSON.stringify({
          id,
          decision: 'denied',
          approved_by: 'ana',
          timestamp: new Date().toISOString(),
          plan_sig,
          reason: 'too broad',
        }),
      );
    });
    const result = await runner.doTask(root);
    expect(result.finishReason).toBe('approval.denied');
    expect(calls).toEqual(['read_input:input.txt']);
    expect(stateSchema.parse(await json(join(root, 'progress', 'state.json')))).toMatchObject({
      status: 'stopped',
      finish_reason: 'approval.denied',
    });
  });
});

describe('the Act gate', () => {
  it('blocks a tool outside allowed_tools, journals it, and tells the model', async () => {
    const root = await makeTaskFolder();
    const calls: string[] = [];
    const model = phaseModel({
      act: (options) =>
        options.prompt.at(-1)?.role === 'tool'
          ? 'Could not read; stopped.'
          : { toolCalls: [{ id: 'x1', name: 'read_input', input: { name: 'input.txt' } }] },
      verify: () => JSON.stringify({ criteria: [{ id: 'a1', passed: false, evidence: 'no file' }] }),
    });
    const result = await createRunner({
      model,
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'auto',
    }).doTask(root, { refineOnVerifyFail: false });
    expect(result.finishReason).toBe('verify.failed');
    const blocked = (await frames(root)).filter((frame) => frame.type === 'tool.blocked');
    expect(blocked).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          tool: 'read_input',
          reason: expect.stringContaining("not in the approved plan's allowed_tools"),
        }),
      }),
    ]);
    expect(calls.filter((call) => call.startsWith('read_input'))).toHaveLength(1); // only Gather's
  });

  it('refuses every tool once the plan is edited by hand after approval, and asks for the edit to be approved', async () => {
    const root = await makeTaskFolder();
    const calls: string[] = [];
    let edited = false;
    const model = phaseModel({
      act: (options) => {
        if (!edited) {
          edited = true;
          // A human edits the approved plan while Act runs.
          const tampered = { version: 'plan.v1', ...FIXTURE_PLAN, allowed_tools: ['write_artifact', 'read_input'] };
          void writeFile(join(root, 'progress', 'plan', 'current.json'), JSON.stringify(tampered));
        }
        return options.prompt.at(-1)?.role === 'tool'
          ? 'done'
          : { toolCalls: [{ name: 'write_artifact', input: { name: 'summary.md', text: 'x' } }] };
      },
    });
    const runner = createRunner({ model, tools: (paths) => fixtureTools(paths, calls), approvals: 'auto' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const result = await runner.doTask(root);
    const journal = await frames(root);
    const changed = journal.findIndex((frame) => frame.type === 'plan.changed');
    expect(changed).toBeGreaterThan(0);
    expect(journal[changed + 1]).toMatchObject({
      type: 'tool.blocked',
      data: { reason: expect.stringContaining('edited after it was approved') },
    });
    // The edit becomes plan v2, is approved (auto mode), and the work continues under it.
    expect(journal.filter((frame) => frame.type === 'plan.proposed').map((frame) => frame.data?.origin)).toEqual([
      'proposed by the model',
      'edited by hand after approval',
    ]);
    expect(journal.filter((frame) => frame.type === 'approval.decided')).toHaveLength(2);
    expect(result.finishReason).toBe('completed');
    expect(calls.filter((call) => call.startsWith('write_artifact'))).toHaveLength(1);
  });

  it('asks approval for each call of a required tool, bound to its arguments', async () => {
    const root = await makeTaskFolder();
    const runner = createRunner({ model: phaseModel(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    await runner.doTask(root, { approvals: { requireTools: ['write_artifact'] } });
    const requests = await readdir(join(root, 'progress', 'approvals', 'requests'));
    const tool = await Promise.all(requests.map((file) => json(join(root, 'progress', 'approvals', 'requests', file))));
    expect(tool).toContainEqual(
      expect.objectContaining({
        type: 'tool',
        tool_name: 'write_artifact',
        args_digest: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    );
  });

  it('re-plans when the model asks for another tool, with a new signature and a new approval', async () => {
    const root = await makeTaskFolder();
    let step = 0;
    const model = phaseModel({
      act: (options) => {
        step++;
        if (step === 1)
          return {
            toolCalls: [
              { name: 'request_replan', input: { tools: ['read_input'], reason: 'need to re-read the input' } },
            ],
          };
        if (options.prompt.at(-1)?.role === 'tool' && step > 3) return 'Done.';
        return step === 2
          ? { toolCalls: [{ name: 'read_input', input: { name: 'input.txt' } }] }
          : { toolCalls: [{ name: 'write_artifact', input: { name: 'summary.md', text: 'summary' } }] };
      },
    });
    const result = await createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(root);
    expect(result.finishReason).toBe('completed');
    const v2 = planSchema.parse(await json(join(root, 'progress', 'plan', '0002.json')));
    expect(v2.allowed_tools).toEqual(['write_artifact', 'read_input']);
    const journal = await frames(root);
    expect(journal.filter((frame) => frame.type === 'approval.decided').map((frame) => frame.data?.plan_sig)).toEqual([
      signPlan({ version: 'plan.v1', ...FIXTURE_PLAN }),
      signPlan(v2),
    ]);
    expect(journal.some((frame) => frame.type === 'tool.blocked')).toBe(false);
  });
});

describe('plans and verification', () => {
  it('asks for the plan as a structured answer and repairs it once with the validation errors', async () => {
    const root = await makeTaskFolder();
    const plans: LanguageModelV4CallOptions[] = [];
    const model = phaseModel({
      plan: (options) => {
        plans.push(options);
        if (plans.length === 1) return JSON.stringify({ ...FIXTURE_PLAN, allowed_tools: ['teleport'] });
        return JSON.stringify(FIXTURE_PLAN);
      },
    });
    const result = await createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(root);
    expect(result.finishReason).toBe('completed');
    expect(plans).toHaveLength(2);
    for (const options of plans) {
      expect(options.responseFormat).toMatchObject({
        type: 'json',
        name: 'plan',
        schema: { required: ['goal', 'steps', 'allowed_tools', 'acceptance'] },
      });
    }
    const repair = plans[1]?.prompt.at(-1);
    expect(repair?.role).toBe('user');
    const text = JSON.stringify(repair?.content);
    expect(text).toContain('\\"allowed_tools.0\\": \\"teleport\\" is not an available tool');
    expect(text).toContain(
      '\\"steps.0.tools\\": step \\"s1\\" uses \\"write_artifact\\", which is not in allowed_tools',
    );
    // One durable step: the repair turn happens inside it.
    const journal = await frames(root);
    const planSteps = journal.filter((frame) => frame.type === 'phase.finish' && /^\d+-plan$/.test(frame.step ?? ''));
    expect(planSteps).toHaveLength(1);
  });

  it('fails clearly when the repair is malformed too', async () => {
    const root = await makeTaskFolder();
    const model = phaseModel({ plan: () => 'I would rather not plan.' });
    const result = await createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(root);
    expect(result).toMatchObject({
      finishReason: 'error',
      error: { code: 'plan_invalid', message: expect.stringContaining('the answer is not valid JSON') },
    });
  });

  it('asks Verify for a judgement of every criterion as a structured answer, repairing one left out', async () => {
    const root = await makeTaskFolder();
    const acceptance = [...FIXTURE_PLAN.acceptance, { id: 'a2', criterion: 'The summary is one line' }];
    const verifies: LanguageModelV4CallOptions[] = [];
    const judge = (id: string) => ({ id, passed: true, evidence: `${id} holds` });
    const model = phaseModel({
      plan: () => JSON.stringify({ ...FIXTURE_PLAN, acceptance }),
      verify: (options) => {
        verifies.push(options);
        return JSON.stringify({ criteria: verifies.length === 1 ? [judge('a1')] : [judge('a1'), judge('a2')] });
      },
    });
    const result = await createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(root);
    expect(result.finishReason).toBe('completed');
    expect(verifies).toHaveLength(2);
    expect(verifies[0]?.responseFormat).toMatchObject({
      name: 'judgement',
      schema: { properties: { criteria: { items: { properties: { id: { enum: ['a1', 'a2'] } } } } } },
    });
    expect(JSON.stringify(verifies[1]?.prompt.at(-1))).toContain('criterion \\"a2\\" is not judged');
    const report = verifyReportSchema.parse(
      JSON.parse(await readFile(join(root, 'progress', 'verify', '0001-report.json'), 'utf8')),
    );
    expect(report.criteria.map((criterion) => [criterion.id, criterion.passed, criterion.evidence])).toEqual([
      ['a1', true, 'file_exists: progress/artifacts/summary.md exists | model: a1 holds'],
      ['a2', true, 'model: a2 holds'],
    ]);
  });

  it('refines once after a failed verification, then passes', async () => {
    const root = await makeTaskFolder();
    let verifies = 0;
    const model = phaseModel({
      verify: () => {
        verifies++;
        return JSON.stringify({
          criteria: [{ id: 'a1', passed: verifies > 1, evidence: verifies > 1 ? 'ok now' : 'too vague' }],
        });
      },
    });
    const result = await createRunner({ model, tools: (paths) => fixtureTools(paths), approvals: 'auto' }).doTask(root);
    expect(result).toMatchObject({ finishReason: 'completed', verified: true });
    expect(verifySchemaFiles(await readdir(join(root, 'progress', 'verify')))).toEqual([
      '0001-report.json',
      '0002-report.json',
    ]);
  });
});

function verifySchemaFiles(files: string[]): string[] {
  return files.sort();
}

describe('memory and history in a governed run', () => {
  it('pins memory in the stable prefix, recalls per phase, seeds history, and journals counts without payloads', async () => {
    const { createInMemoryMemoryStore } = await import('../../src/memory/in-memory-memory-store.ts');
    const { createMemoryManager } = await import('../../src/memory/memory-manager.ts');
    const store = createInMemoryMemoryStore();
    await store.put(
      { kind: 'agent', id: 'governed' },
      { kind: 'preference', key: 'style', text: 'Write summaries in plain English.' },
    );
    await store.put(
      { kind: 'user', id: 'u1' },
      { kind: 'fact', title: 'Past task', text: 'The user liked one-line summaries of notes.' },
    );
    const root = await makeTaskFolder();
    await writeFile(
      join(root, 'task', 'history.md'),
      '## user\nPlease keep it short.\n\n## assistant\nUnderstood: one line.\n',
    );
    const model = phaseModel();
    const result = await createRunner({
      model,
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      memory: ({ taskId, onEvent, redact }) =>
        createMemoryManager({ store, channels: { agent: 'governed', user: 'u1', task: taskId }, onEvent, redact }),
    }).doTask(root, { userId: 'u1' });
    expect(result.finishReason).toBe('completed');

    const systems = model.calls.map((call) =>
      JSON.stringify(call.options.prompt.filter((message) => message.role === 'system')),
    );
    expect(new Set(systems).size).toBe(1);
    expect(systems[0]).toContain('Write summaries in plain English.');
    const gather = JSON.stringify(model.calls[0]?.options.prompt);
    expect(gather).toContain('Please keep it short.');
    expect(gather).toContain('Understood: one line.');

    const journal = await frames(root);
    const memoryEvents = journal.filter((frame) => frame.type === 'memory.read' || frame.type === 'memory.write');
    expect(memoryEvents.some((frame) => frame.type === 'memory.read')).toBe(true);
    expect(memoryEvents.some((frame) => frame.type === 'memory.write')).toBe(true);
    expect(JSON.stringify(memoryEvents)).not.toMatch(/plain English|one-line summaries/);
    const learned = await store.query([{ kind: 'task', id: result.taskId }], { topK: 5 });
    expect(learned[0]?.kind).toBe('episode');
  });
});

describe('the run protects its control files', () => {
  it('blocks a model that tries to write its own approval decision', async () => {
    const { defineTool } = await import('../../src/tools/define-tool.ts');
    const { z } = await import('zod');
    const written: string[] = [];
    const writeFile = defineTool({
      name: 'write_file',
      description: 'Writes a file under progress/',
      input: z.object({ path: z.string(), text: z.string() }),
      effects: 'write',
      execute: ({ path }) => void written.push(path),
    });
    const plan = { ...FIXTURE_PLAN, allowed_tools: ['write_artifact', 'write_file'] };
    const model = phaseModel({
      plan: () => JSON.stringify(plan),
      act: (options) =>
        options.prompt.at(-1)?.role === 'tool'
          ? 'done'
          : {
              toolCalls: [
                { name: 'write_artifact', input: { name: 'summary.md', text: 'ok' } },
                {
                  name: 'write_file',
                  input: { path: 'progress/approvals/decisions/req_x.json', text: '{"decision":"approved"}' },
                },
                { name: 'write_file', input: { path: 'plan/current.json', text: '{}' } },
              ],
            },
    });
    const root = await makeTaskFolder();
    await createRunner({ model, tools: (paths) => [...fixtureTools(paths), writeFile], approvals: 'auto' }).doTask(
      root,
    );
    expect(written).toEqual([]);
    const reasons = (await frames(root))
      .filter((frame) => frame.type === 'tool.blocked')
      .map((frame) => String(frame.data?.reason));
    expect(reasons).toEqual([
      expect.stringContaining('progress/approvals belongs to the runner'),
      expect.stringContaining('progress/plan belongs to the runner'),
    ]);
  });
});

describe('a policy inside a governed run', () => {
  it('routes its approvals through request files and journals its denials with the rule id', async () => {
    const { createPolicy } = await import('../../src/policy/create-policy.ts');
    const { requireApprovalFor, toolDenylist } = await import('../../src/policy/tool-rules.ts');
    const policy = createPolicy({
      rules: [toolDenylist(['read_input'], { id: 'no-rereads' }), requireApprovalFor(['write_artifact'])],
    });
    const model = phaseModel({
      act: (options) =>
        options.prompt.at(-1)?.role === 'tool'
          ? 'done'
          : {
              toolCalls: [
                { name: 'read_input', input: { name: 'input.txt' } },
                { name: 'write_artifact', input: { name: 'summary.md', text: 'ok' } },
              ],
            },
      plan: () => JSON.stringify({ ...FIXTURE_PLAN, allowed_tools: ['write_artifact', 'read_input'] }),
    });
    const root = await makeTaskFolder();
    const calls: string[] = [];
    const result = await createRunner({
      model,
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'auto',
      policy,
    }).doTask(root);
    expect(result.finishReason).toBe('completed');
    const journal = await frames(root);
    const blocked = journal.filter((frame) => frame.type === 'policy.blocked');
    expect(blocked).toContainEqual(
      expect.objectContaining({ data: expect.objectContaining({ rule_id: 'no-rereads', target: 'read_input' }) }),
    );
    const requests = await Promise.all(
      (await readdir(join(root, 'progress', 'approvals', 'requests'))).map((file) =>
        json(join(root, 'progress', 'approvals', 'requests', file)),
      ),
    );
    expect(requests).toContainEqual(expect.objectContaining({ type: 'tool', tool_name: 'write_artifact' }));
    // The policy applies in every phase: Gather's read is denied too, so only the approved write ran.
    expect(calls).toEqual(['write_artifact:summary.md']);
  });
});

describe('other loops', () => {
  it('runs the custom loop of docs/runner.md, built from the public LoopContext, through a re-plan', async () => {
    const { planThenAct } = await import('../../examples/loops/plan-then-act.ts');
    const example = await readFile(join(import.meta.dirname, '../../examples/loops/plan-then-act.ts'), 'utf8');
    const docs = await readFile(join(import.meta.dirname, '../../docs/runner.md'), 'utf8');
    expect(docs).toContain(example.slice(example.indexOf('export const planThenAct')));
    const root = await makeTaskFolder();
    let act = 0;
    const model = phaseModel({
      act: (options) => {
        act++;
        if (act === 1)
          return { toolCalls: [{ name: 'request_replan', input: { tools: ['read_input'], reason: 'to re-read' } }] };
        if (options.prompt.at(-1)?.role === 'tool' && act > 3) return 'Done.';
        return act === 2
          ? { toolCalls: [{ name: 'read_input', input: { name: 'input.txt' } }] }
          : { toolCalls: [{ name: 'write_artifact', input: { name: 'summary.md', text: 'summary' } }] };
      },
    });
    const result = await createRunner({
      model,
      tools: (paths) => fixtureTools(paths),
      approvals: 'auto',
      loops: [planThenAct],
    }).doTask(root, { loop: 'plan-then-act' }, { view: 'full' });
    expect(result).toMatchObject({ finishReason: 'completed', loopName: 'plan-then-act', verified: true });
    expect(result.steps?.map((step) => step.name)).not.toContain('gather');
    const journal = await frames(root);
    expect(journal.filter((frame) => frame.type === 'approval.decided')).toHaveLength(2);
    expect(planSchema.parse(await json(join(root, 'progress', 'plan', '0002.json'))).allowed_tools).toEqual([
      'write_artifact',
      'read_input',
    ]);
  });

  it('gives a loop only its public surface: no session, no runner internals', async () => {
    let keys: string[] = [];
    const probe = {
      name: 'probe',
      version: '1',
      async run(context: LoopContext) {
        keys = Object.keys(context).sort();
        context.emit({ type: 'warning', message: 'probed' });
        return { reason: 'completed' as const, output: String(context.budgets().iterations) };
      },
    };
    const root = await makeTaskFolder();
    const result = await createRunner({
      model: phaseModel(),
      tools: (paths) => fixtureTools(paths),
      loops: [probe],
    }).doTask(root, { loop: 'probe', budgets: { maxIterations: 7 } });
    expect(result).toMatchObject({ finishReason: 'completed', outputText: '7' });
    expect(keys).toEqual([
      'agentStep',
      'brief',
      'budgets',
      'contextFor',
      'emit',
      'goal',
      'paths',
      'phases',
      'policy',
      'prompts',
      'runTool',
      'signal',
      'spec',
      'step',
      'tools',
    ]);
    expect((await frames(root)).some((frame) => frame.type === 'warning' && frame.message === 'probed')).toBe(true);
  });

  it('runs seed 002 plan → act → reflect with the default planner, executor and reflector', async () => {
    const root = await makeTaskFolder();
    let proposals = 0;
    const model = phaseModel({
      other: () => {
        proposals++;
        return proposals === 1
          ? JSON.stringify({
              type: 'tool',
              toolId: 'write_artifact',
              input: { name: 'summary.md', text: 'summary' },
              reason: 'write it',
            })
          : JSON.stringify({ type: 'finish', message: 'Wrote the summary.' });
      },
    });
    const calls: string[] = [];
    const result = await createRunner({
      model,
      tools: (paths) => fixtureTools(paths, calls),
      approvals: 'auto',
    }).doTask(root, { loop: 'plan-act-reflect' });
    expect(result).toMatchObject({
      finishReason: 'completed',
      loopName: 'plan-act-reflect',
      outputText: 'Wrote the summary.',
    });
    expect(calls).toEqual(['write_artifact:summary.md']);
    expect((await frames(root)).filter((frame) => frame.type === 'tool.call')).toHaveLength(1);
  });

  it('refuses a spec that names an unknown loop', async () => {
    const root = await makeTaskFolder();
    await expect(createRunner({ model: phaseModel() }).doTask(root, { loop: 'nope' })).rejects.toMatchObject({
      code: 'invalid_config',
      message: expect.stringContaining('known: gather-plan-act-verify, plan-act-reflect'),
    });
  });
});
