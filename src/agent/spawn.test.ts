import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '../testing/scripted-model.ts';
import { LLMAgent } from './llm-agent.ts';
import { spawn } from './spawn.ts';
import type { Agent } from './types.ts';

describe('spawn', () => {
  it('runs an agent in the background: pending, running, completed', async () => {
    const agent = new LLMAgent({ name: 'a', model: new ScriptedModel([{ delayMs: 20, text: 'done' }]) });
    const handle = spawn(agent, { input: 'x' });
    expect(handle.state()).toBe('pending');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(handle.state()).toBe('running');
    const result = await handle.await();
    expect(result.output).toBe('done');
    expect(handle.state()).toBe('completed');
    await expect(handle.done).resolves.toBeUndefined();
  });

  it('cancels a run', async () => {
    const agent = new LLMAgent({ name: 'a', model: new ScriptedModel([{ delayMs: 5_000, text: 'never' }]) });
    const handle = spawn(agent, { input: 'x' });
    await new Promise((resolve) => setTimeout(resolve, 5));
    handle.cancel();
    const result = await handle.await();
    expect(result.finishReason).toBe('aborted');
    expect(handle.state()).toBe('cancelled');
  });

  it('stops waiting, not the run, when await is aborted', async () => {
    const agent = new LLMAgent({ name: 'a', model: new ScriptedModel([{ delayMs: 50, text: 'finished anyway' }]) });
    const handle = spawn(agent, { input: 'x' });
    await expect(handle.await(AbortSignal.timeout(5))).rejects.toMatchObject({ code: 'aborted' });
    expect((await handle.await()).output).toBe('finished anyway');
  });

  it('is panic-safe: an agent that throws ends in the failed state', async () => {
    const broken: Agent = {
      name: 'broken',
      description: '',
      execute: () => {
        throw new Error('kaboom');
      },
    };
    const handle = spawn(broken, { input: 'x' });
    await handle.done;
    expect(handle.state()).toBe('failed');
    expect(await handle.await()).toMatchObject({
      finishReason: 'error',
      error: { code: 'internal', message: 'kaboom' },
    });
  });

  it('reports a failed run as failed', async () => {
    const handle = spawn(new LLMAgent({ name: 'a', model: new ScriptedModel([{ error: new Error('bad') }]) }), {
      input: 'x',
    });
    await handle.done;
    expect(handle.state()).toBe('failed');
  });
});
