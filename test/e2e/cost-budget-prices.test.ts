import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.ts';
import type { Output } from '../../src/cli/render.ts';
import { extendCatalog } from '../../src/core/model-catalog.ts';
import { resolveModel } from '../../src/model/resolve-model.ts';
import { createRunner } from '../../src/task/runner.ts';
import { fixtureTools, makeTaskFolder } from '../support/governed-fixture.ts';
import { startOpenAICompatibleServer } from '../support/openai-compatible-server.ts';

// A cost budget is enforced only if every model that may run has a price. A run with an unpriced model (every
// local OpenAI-compatible server) refuses to start, says how to price it, and each way it names works.

let local: Awaited<ReturnType<typeof startOpenAICompatibleServer>>;
beforeAll(async () => {
  local = await startOpenAICompatibleServer();
});
afterAll(() => local.server.close());

const spec = () => `openai-compatible:${local.url}#llama-3.1-8b`;

async function refusal(run: () => Promise<unknown>): Promise<Error & { code?: string }> {
  return run().then(
    () => {
      throw new Error('the run started');
    },
    (error: unknown) => error as Error & { code?: string },
  );
}

describe('createRunner with a cost budget', () => {
  it('refuses to start with an unpriced model, naming it and the fix, before writing anything', async () => {
    const root = await makeTaskFolder();
    const before = local.requests();
    const runner = createRunner({ model: spec(), tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    const error = await refusal(() => runner.doTask(root, { budgets: { maxCostUsd: 0.000001 } }));
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain(`no price is known for ${spec()} (model id "llama-3.1-8b")`);
    expect(error.message).toContain('--price llama-3.1-8b=<input>/<output>');
    expect(error.message).toContain("extendCatalog({ 'llama-3.1-8b': { price:");
    expect(existsSync(join(root, 'progress', 'spec.json'))).toBe(false);
    expect(local.requests()).toBe(before);
  });

  it('runs once the model has a price in the catalog, and the cost budget stops it', async () => {
    const root = await makeTaskFolder();
    const catalog = extendCatalog({ 'llama-3.1-8b': { price: { input: 0, output: 100 } } });
    const runner = createRunner({ model: spec(), catalog, tools: (paths) => fixtureTools(paths), approvals: 'auto' });
    // Each call answers with 30 output tokens: $0.003 at $100 per million. The run would take 6 calls.
    const result = await runner.doTask(root, { budgets: { maxCostUsd: 0.005 } });
    expect(result.finishReason).toBe('budget.cost');
    expect(result.usage.costUsd).toBe(0.006);
  });

  it('refuses a fallback chain with one unpriced model, so a mid-run fallback cannot switch the budget off', async () => {
    const root = await makeTaskFolder();
    const priced = resolveModel('openai-chat:gpt-4o-mini', { env: { OPENAI_API_KEY: 'sk-test' } });
    const unpriced = resolveModel(spec());
    const runner = createRunner({ model: [priced, unpriced], approvals: 'auto' });
    const error = await refusal(() => runner.startTask(root, { budgets: { maxCostUsd: 1 } }));
    expect(error.code).toBe('invalid_config');
    expect(error.message).toContain('no price is known for openai-compatible.chat:llama-3.1-8b');
    expect(error.message).not.toContain('gpt-4o-mini');
  });
});

describe('agency run --max-cost', () => {
  async function agency(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    let code = 0;
    const out: Output = { write: (text) => void (stdout += text), isTTY: false };
    const err: Output = { write: (text) => void (stderr += text), isTTY: false };
    const program = buildProgram(out, err, (exit) => {
      code = exit;
    });
    try {
      await program.parseAsync(args, { from: 'user' });
    } catch {
      code = 2;
    }
    return { code, stdout, stderr };
  }

  it('refuses an unpriced model with exit 2; the --price it suggests makes the budget work', async () => {
    const root = await makeTaskFolder();
    const base = ['run', root, '--model', spec(), '--approvals', 'auto', '--max-cost', '0.005', '--json'];
    const refused = await agency(base);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--price llama-3.1-8b=<input>/<output>');

    const priced = await agency([...base, '--price', 'llama-3.1-8b=0/100']);
    expect(priced.stderr).toBe('');
    const { result } = JSON.parse(priced.stdout.trim().split('\n').at(-1) as string) as {
      result: { finishReason: string; usage: { costUsd: number } };
    };
    expect(result).toMatchObject({ finishReason: 'budget.cost', usage: { costUsd: 0.006 } });
    expect(priced.code).toBe(3);
  });

  it('rejects a malformed --price with exit 2 and the expected form', async () => {
    const root = await makeTaskFolder();
    const { code, stderr } = await agency(['run', root, '--model', spec(), '--price', 'llama-3.1-8b=cheap']);
    expect(code).toBe(2);
    expect(stderr).toContain('<model>=<input>/<output>');
  });
});
