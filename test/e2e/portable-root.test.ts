import { runInContext } from 'node:vm';
import type { Metafile, Plugin } from 'esbuild';
import { beforeAll, describe, expect, it } from 'vitest';
import { bundleForWeb, webContext } from '../support/portable-bundle.ts';

// The root entry must run in any JS runtime: a browser, a worker, Deno, Bun, an edge function. It is bundled here
// with every Node built-in refused, and the bundle runs in a bare V8 context that has only the Web APIs such runtimes
// share (timers, AbortController, TextEncoder, URL, crypto.getRandomValues, streams, …): no `process`, `require`,
// `Buffer` or `node:*`.

const PROVIDERS = ['@ai-sdk/openai', '@ai-sdk/anthropic', '@ai-sdk/openai-compatible'];

// The provider packages stay outside the bundle, so that a static import of one would fail when the bundle loads.
const providersOutside: Plugin = {
  name: 'providers-outside',
  setup(bundle) {
    bundle.onResolve({ filter: /^@ai-sdk\/(openai|anthropic|openai-compatible)$/ }, ({ path }) => ({
      path,
      external: true,
    }));
  },
};

// The root entry, the scripted model (a test double with no Node import) and zod for the tool's schema.
const ENTRY = `
export * from './src/index.ts';
export { ScriptedModel } from './src/testing/scripted-model.ts';
export { z } from 'zod';
`;

let code = '';
let metafile: Metafile;

beforeAll(async () => {
  ({ code, metafile } = await bundleForWeb(ENTRY, { globalName: 'agency', plugins: [providersOutside] }));
});

describe('the root entry in a runtime without Node built-ins', () => {
  it('bundles without reaching a Node built-in, and reaches the providers only through dynamic imports', () => {
    const providerImports = Object.values(metafile.inputs).flatMap((input) =>
      input.imports.filter((imported) => PROVIDERS.includes(imported.path)),
    );
    expect(providerImports.length).toBeGreaterThan(0);
    expect(providerImports.every((imported) => imported.kind === 'dynamic-import')).toBe(true);
  });

  it('runs an LLMAgent whose answer comes from its tool', async () => {
    const log: string[] = [];
    const context = webContext(log);
    for (const name of ['process', 'require', 'Buffer', 'global', 'setImmediate']) {
      expect(runInContext(`typeof ${name}`, context)).toBe('undefined');
    }
    runInContext(code, context);
    const script = `
      (async () => {
        const { LLMAgent, defineTool, resolveModel, ScriptedModel, z } = agency;
        let ran = 0;
        const add = defineTool({
          name: 'add',
          description: 'Adds two numbers',
          effects: 'read',
          input: z.object({ a: z.number(), b: z.number() }),
          execute: ({ a, b }) => { ran++; return a + b; },
        });
        const model = new ScriptedModel([
          { toolCalls: [{ id: 'c1', name: 'add', input: { a: 2, b: 3 } }] },
          (call) => {
            const result = call.prompt.at(-1).content.find((part) => part.type === 'tool-result');
            return 'The sum is ' + result.output.value + '.';
          },
        ]);
        const agent = new LLMAgent({ name: 'adder', model, tools: [add] });
        const result = await agent.execute({ input: 'What is 2 + 3?' });
        // A spec resolves without loading its provider: that happens on the first call.
        const spec = resolveModel('anthropic:claude-sonnet-4-5', { env: { ANTHROPIC_API_KEY: 'k' } });
        return JSON.stringify({
          output: result.output,
          finishReason: result.finishReason,
          error: result.error?.message, // absent on success; names the failure otherwise
          calls: result.calls.map(({ name, input, output }) => ({ name, input, output })),
          ran,
          modelCalls: model.calls.length,
          spec: spec.provider + ':' + spec.modelId,
        });
      })()
    `;
    const outcome = JSON.parse(await (runInContext(script, context) as Promise<string>));
    expect(outcome).toEqual({
      output: 'The sum is 5.',
      finishReason: 'stop',
      calls: [{ name: 'add', input: { a: 2, b: 3 }, output: 5 }],
      ran: 1,
      modelCalls: 2,
      spec: 'anthropic.messages:claude-sonnet-4-5',
    });
    expect(log).toEqual([]);
  });
});
