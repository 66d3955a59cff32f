import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { AgentEvent, WorkflowEvent } from '../../agent/types.ts';
import { AgencyError } from '../../core/errors.ts';
import { defineTool } from '../../tools/define-tool.ts';
import { requestSuspend } from '../../tools/suspend-request.ts';
import type { FunctionStep, WorkflowOptions } from './types.ts';
import { memoryRecorder } from './recorder.ts';
import { emptyDagState } from './run-dag.ts';
import { createWorkflow } from './workflow.ts';

const fn = (id: string, extra: Partial<WorkflowOptions['steps'][number]> = {}) => ({ id, run: () => id, ...extra });

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

function collect() {
  const events: AgentEvent[] = [];
  return { events, onEvent: (event: AgentEvent) => events.push(event) };
}

const ofType = <T extends WorkflowEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((event): event is Extract<WorkflowEvent, { type: T }> => event.type === type);

describe('createWorkflow validation', () => {
  it.each([
    [
      [fn('a', { dependsOn: ['b'] }), fn('b', { dependsOn: ['c'] }), fn('c', { dependsOn: ['a'] })],
      /cycle: a → b → c → a/,
    ],
    [[fn('a'), fn('b', { dependsOn: ['nope'] })], /step "b" depends on "nope", which is not a step/],
    [[fn('a'), fn('a')], /two steps have the id "a"/],
    [[fn('a', { dependsOn: ['a'] })], /step "a" depends on itself/],
    [[{ id: 'x' }], /step "x" must have exactly one of "agent", "tool" or "run"/],
    [[fn('bad id')], /steps\[0\]\.id must be/],
    [[fn('a', { retry: { attempts: 0 } })], /step "a": "retry.attempts"/],
    [[], /at least one step/],
  ])('refuses a bad definition %#, naming the step', (steps, message) => {
    expect(() => createWorkflow({ name: 'wf', steps: steps as WorkflowOptions['steps'] })).toThrow(message);
  });

  it('refuses a bad name and concurrency', () => {
    expect(() => createWorkflow({ name: '../x', steps: [fn('a')] })).toThrow(/workflow "..\/x": the name/);
    expect(() => createWorkflow({ name: 'wf', steps: [fn('a')], concurrency: 0 })).toThrow(/"concurrency"/);
  });
});

describe('a workflow run', () => {
  it('runs independent branches side by side and joins them', async () => {
    const bothStarted = deferred();
    let started = 0;
    const branch = (id: string) => ({
      id,
      dependsOn: ['a'],
      run: async () => {
        if (++started === 2) bothStarted.resolve();
        await bothStarted.promise; // would never resolve if the branches ran one after the other
        return id.toUpperCase();
      },
    });
    const wf = createWorkflow({
      name: 'fan',
      steps: [
        fn('a'),
        branch('b'),
        branch('c'),
        { id: 'd', dependsOn: ['b', 'c'], run: ({ outputs }) => `${String(outputs.b)}+${String(outputs.c)}` },
      ],
    });
    const { events, onEvent } = collect();
    const result = await wf.execute({ input: 'go' }, { onEvent });
    expect(result.finishReason).toBe('stop');
    expect(result.output).toBe('B+C');
    expect(result.calls.map((call) => [call.type, call.name])).toEqual([
      ['step', 'a'],
      ['step', 'b'],
      ['step', 'c'],
      ['step', 'd'],
    ]);
    const order = events.flatMap((event) =>
      event.type === 'workflow-step-start' || event.type === 'workflow-step-finish'
        ? [`${event.type.slice(14)}:${event.step}`]
        : [],
    );
    expect(order.indexOf('start:c')).toBeLessThan(order.indexOf('finish:b'));
    expect(events.at(-1)?.type).toBe('finish');
  });

  it('runs at most `concurrency` steps at once', async () => {
    let running = 0;
    let most = 0;
    const step = (id: string) => ({
      id,
      run: async () => {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setImmediate(resolve));
        running--;
        return id;
      },
    });
    const wf = createWorkflow({ name: 'bounded', steps: ['a', 'b', 'c', 'd', 'e'].map(step), concurrency: 2 });
    const result = await wf.execute({ input: '' });
    expect(result.finishReason).toBe('stop');
    expect(most).toBe(2);
  });

  it('skips a step whose condition is false, and the steps that need it', async () => {
    const ran: string[] = [];
    const step = (id: string, extra: Partial<FunctionStep> = {}) => ({ id, run: () => (ran.push(id), id), ...extra });
    const wf = createWorkflow({
      name: 'cond',
      steps: [
        { id: 'classify', run: () => ({ urgent: false }) },
        step('page', {
          dependsOn: ['classify'],
          when: ({ outputs }) => (outputs.classify as { urgent: boolean }).urgent,
        }),
        step('after-page', { dependsOn: ['page'] }),
        step('queue', {
          dependsOn: ['classify'],
          when: ({ outputs }) => !(outputs.classify as { urgent: boolean }).urgent,
        }),
      ],
    });
    const { events, onEvent } = collect();
    const result = await wf.execute({ input: '' }, { onEvent });
    expect(ran).toEqual(['queue']);
    expect(result.output).toBe('queue');
    expect(
      ofType(events, 'workflow-step-finish')
        .filter((e) => e.status === 'skipped')
        .map((e) => e.step),
    ).toEqual(['page', 'after-page']);
  });

  it('retries a failing step with backoff, then succeeds', async () => {
    const waits: number[] = [];
    let calls = 0;
    const wf = createWorkflow({
      name: 'retry',
      steps: [
        {
          id: 'flaky',
          retry: { attempts: 3, initialMs: 100, maxMs: 1000 },
          run: () => {
            if (++calls < 3) throw new AgencyError('network_failed', `down ${calls}`);
            return 'up';
          },
        },
      ],
      deps: { random: () => 1, sleep: async (ms) => void waits.push(ms) },
    });
    const { events, onEvent } = collect();
    const result = await wf.execute({ input: '' }, { onEvent });
    expect(result.output).toBe('up');
    expect(waits).toEqual([100, 200]);
    expect(result.retryInfo.attempts).toBe(3);
    const finishes = ofType(events, 'workflow-step-finish');
    expect(finishes.map((e) => [e.attempt, e.status, e.error?.code])).toEqual([
      [1, 'failed', 'network_failed'],
      [2, 'failed', 'network_failed'],
      [3, 'done', undefined],
    ]);
  });

  it('fails the run naming the step when its attempts run out, cancelling steps in flight', async () => {
    let sawAbort = false;
    const wf = createWorkflow({
      name: 'fail',
      steps: [
        { id: 'bad', retry: { attempts: 2, initialMs: 1 }, run: () => Promise.reject(new Error('disk on fire')) },
        {
          id: 'slow',
          run: ({ signal }) =>
            new Promise((_, reject) =>
              signal.addEventListener('abort', () => {
                sawAbort = true;
                reject(new Error('aborted'));
              }),
            ),
        },
        fn('never', { dependsOn: ['bad'] }),
      ],
    });
    const result = await wf.execute({ input: '' });
    expect(result.finishReason).toBe('error');
    expect(result.error?.message).toBe('Step "bad" failed after 2 attempt(s): disk on fire');
    expect(sawAbort).toBe(true);
    expect(result.calls).toEqual([]);
  });

  it('fails a step whose output is not JSON, or whose condition throws', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const notJson = createWorkflow({ name: 'x', steps: [{ id: 'loop', run: () => cyclic as never }] });
    expect((await notJson.execute({ input: '' })).error?.message).toMatch(/Step "loop" .*cannot be written as JSON/);
    const throwing = createWorkflow({
      name: 'y',
      steps: [
        fn('a', {
          when: () => {
            throw new Error('boom');
          },
        }),
      ],
    });
    expect((await throwing.execute({ input: '' })).error?.message).toMatch(/Step "a" .*"when" condition threw: boom/);
  });

  it('stops at once when cancelled', async () => {
    const controller = new AbortController();
    const wf = createWorkflow({
      name: 'cancel',
      steps: [
        {
          id: 'wait',
          run: ({ signal }) =>
            new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('cancelled')))),
        },
        fn('next', { dependsOn: ['wait'] }),
      ],
    });
    const pending = wf.execute({ input: '' }, { signal: controller.signal });
    controller.abort();
    const result = await pending;
    expect(result.finishReason).toBe('aborted');
    expect(result.error?.code).toBe('aborted');
    expect(result.calls).toEqual([]);
  });

  it('suspends for human input and resumes with the answer, running finished steps once', async () => {
    const ran: string[] = [];
    const wf = createWorkflow({
      name: 'approve',
      steps: [
        { id: 'draft', run: () => (ran.push('draft'), 'refund $20') },
        {
          id: 'ask',
          dependsOn: ['draft'],
          run: ({ outputs, resumeData, suspend }) => (
            ran.push('ask'),
            resumeData ?? suspend({ question: `OK to ${String(outputs.draft)}?` })
          ),
        },
        { id: 'side', run: () => (ran.push('side'), 'side done') },
        { id: 'send', dependsOn: ['ask'], run: ({ outputs }) => `sent: ${JSON.stringify(outputs.ask)}` },
      ],
    });
    const { events, onEvent } = collect();
    const first = await wf.execute({ input: '' }, { onEvent });
    expect(first.finishReason).toBe('suspended');
    expect(first.suspended?.payload).toEqual({ question: 'OK to refund $20?' });
    expect(ofType(events, 'workflow-suspended')).toMatchObject([
      { step: 'ask', payload: { question: 'OK to refund $20?' } },
    ]);
    expect(first.suspended?.serialize()).toMatchObject({ agent: 'approve', state: { step: 'ask' } });
    const second = await first.suspended!.resume({ approved: true });
    expect(second.finishReason).toBe('stop');
    expect(second.output).toBe('sent: {"approved":true}');
    expect(ran.sort()).toEqual(['ask', 'ask', 'draft', 'side']);
    await expect(first.suspended!.resume({})).rejects.toMatchObject({ code: 'suspension_used' });
  });

  it('suspends from a tool step with requestSuspend, and passes the answer as resumeData', async () => {
    const confirm = defineTool({
      name: 'confirm',
      description: 'Asks a person',
      input: z.object({ what: z.string() }),
      effects: 'read',
      execute: ({ what }, { resumeData }) => resumeData ?? requestSuspend({ confirm: what }),
    });
    const wf = createWorkflow({
      name: 'tooled',
      steps: [{ id: 'confirm', tool: confirm, args: ({ input }) => ({ what: input }) }],
    });
    const first = await wf.execute({ input: 'deploy' });
    expect(first.suspended?.payload).toEqual({ confirm: 'deploy' });
    const done = await first.suspended!.resume('yes');
    expect(done.output).toBe('yes');
  });

  it('fails a tool step with the tool error, naming the step', async () => {
    const strict = defineTool({
      name: 'strict',
      description: 'x',
      input: z.object({ n: z.number() }),
      effects: 'read',
      execute: () => 1,
    });
    const wf = createWorkflow({ name: 'toolfail', steps: [{ id: 'call', tool: strict, args: () => ({ n: 'one' }) }] });
    const result = await wf.execute({ input: '' });
    expect(result.error).toMatchObject({
      code: 'tool_invalid_input',
      message: expect.stringMatching(/^Step "call" failed after 1 attempt/),
    });
  });

  it('nests: a workflow is an agent step of another, its events wrapped', async () => {
    const inner = createWorkflow({
      name: 'inner',
      steps: [fn('x'), { id: 'y', dependsOn: ['x'], run: ({ input }) => `inner got ${input}` }],
    });
    const outer = createWorkflow({
      name: 'outer',
      steps: [fn('prep'), { id: 'sub', agent: inner, dependsOn: ['prep'], input: () => 'hello' }],
    });
    const { events, onEvent } = collect();
    const result = await outer.execute({ input: '' }, { onEvent });
    expect(result.output).toBe('inner got hello');
    const nested = ofType(events, 'workflow-step-event').map((e) => [e.step, e.event.type]);
    expect(nested).toContainEqual(['sub', 'workflow-step-start']);
    expect(nested.at(-1)).toEqual(['sub', 'finish']);
  });

  it('rejects when its record fails, after cancelling and waiting for the steps in flight', async () => {
    let slowSettled = false;
    const wf = createWorkflow({
      name: 'broken-record',
      steps: [
        fn('quick'),
        {
          id: 'slow',
          run: ({ signal }) =>
            new Promise((_, reject) =>
              signal.addEventListener('abort', () => {
                setTimeout(() => {
                  slowSettled = true;
                  reject(new Error('cancelled'));
                }, 5);
              }),
            ),
        },
      ],
    });
    const recorder = {
      ...memoryRecorder,
      stepFinished: () => Promise.reject(new AgencyError('journal_not_durable', 'disk full')),
    };
    await expect(wf.run({ input: '' }, {}, { state: emptyDagState(), recorder })).rejects.toMatchObject({
      code: 'journal_not_durable',
    });
    expect(slowSettled).toBe(true);
  });

  it('suspends when a nested workflow suspends, and resumes it through its handle', async () => {
    const ran: string[] = [];
    const inner = createWorkflow({
      name: 'inner',
      steps: [
        { id: 'prep', run: () => (ran.push('prep'), 'p') },
        {
          id: 'ask',
          dependsOn: ['prep'],
          run: ({ resumeData, suspend }) => (ran.push('ask'), resumeData ?? suspend({ q: 'inner?' })),
        },
      ],
    });
    const outer = createWorkflow({
      name: 'outer',
      steps: [
        { id: 'sub', agent: inner },
        { id: 'after', dependsOn: ['sub'], run: ({ outputs }) => `outer got ${String(outputs.sub)}` },
      ],
    });
    const first = await outer.execute({ input: 'x' });
    expect(first.finishReason).toBe('suspended');
    expect(first.suspended?.payload).toEqual({ q: 'inner?' });
    const done = await first.suspended!.resume('yes');
    expect(done.output).toBe('outer got yes');
    expect(ran).toEqual(['prep', 'ask', 'ask']);
  });

  it('fails the run when its output function throws', async () => {
    const wf = createWorkflow({
      name: 'bad-output',
      steps: [fn('a')],
      output: () => {
        throw new Error('no answer');
      },
    });
    const result = await wf.execute({ input: '' });
    expect(result.finishReason).toBe('error');
    expect(result.error).toEqual({
      code: 'invalid_argument',
      message: 'Workflow "bad-output": its output function threw: no answer',
    });
  });
});
