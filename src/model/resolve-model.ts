import type { LanguageModelV4 } from '@ai-sdk/provider';
import { AgencyError } from '../core/errors.ts';
import { setModelEndpoint } from '../core/model-prices.ts';
import { lazyModel } from './lazy-model.ts';
import { type ModelSpec, parseModelSpec } from './model-spec.ts';

/** Options for {@link resolveModel}. */
export type ResolveModelOptions = {
  /** Where API keys and base URLs are read from. @default process.env where the runtime has one, else {} */
  env?: Readonly<Record<string, string | undefined>>;
  /** The fetch the providers use; inject one to serve recorded responses. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Turns a model spec, or any `LanguageModelV4` object, into a model.
 *
 * - `openai:<model>`: OpenAI Responses API; key from `OPENAI_API_KEY`, optional `OPENAI_BASE_URL`.
 * - `openai-chat:<model>`: OpenAI Chat Completions API, same variables.
 * - `anthropic:<model>`: key from `ANTHROPIC_API_KEY`, optional `ANTHROPIC_BASE_URL`.
 * - `openai-compatible:<baseURL>#<model>`: vLLM, llama.cpp, LM Studio, Ollama; optional `OPENAI_COMPATIBLE_API_KEY`.
 *   A structured answer is asked for with `response_format: json_schema`.
 *
 * The provider package (`@ai-sdk/openai`, `@ai-sdk/anthropic`, `@ai-sdk/openai-compatible`) is imported on the
 * model's first call, not here, so resolving a spec loads nothing and works in any JS runtime; the key is checked
 * here. A `replay:<cassette>` spec reads a file: in code, use `replayModel` from `agency/testing`; the CLI's
 * `--model` and a task spec's `model` take it as it is.
 *
 * @throws AgencyError `invalid_model_spec` for a malformed spec or a `replay:` one, `missing_api_key` naming the
 * variable to set.
 * @example
 * const model = resolveModel('anthropic:claude-sonnet-4-5');
 */
export function resolveModel(spec: string | LanguageModelV4, options: ResolveModelOptions = {}): LanguageModelV4 {
  if (typeof spec !== 'string') return checkModelObject(spec);
  const { env = processEnv(), fetch } = options;
  const parsed = parseModelSpec(spec);
  switch (parsed.kind) {
    case 'openai': {
      const settings = {
        apiKey: requireKey(env, 'OPENAI_API_KEY', spec),
        ...optional('baseURL', env.OPENAI_BASE_URL),
        ...optional('fetch', fetch),
      };
      return lazyModel(`openai.${parsed.api}`, parsed.modelId, async () => {
        const provider = (await import('@ai-sdk/openai')).createOpenAI(settings);
        return parsed.api === 'chat' ? provider.chat(parsed.modelId) : provider.responses(parsed.modelId);
      });
    }
    case 'anthropic': {
      const settings = {
        apiKey: requireKey(env, 'ANTHROPIC_API_KEY', spec),
        ...optional('baseURL', env.ANTHROPIC_BASE_URL),
        ...optional('fetch', fetch),
      };
      return lazyModel('anthropic.messages', parsed.modelId, async () =>
        (await import('@ai-sdk/anthropic')).createAnthropic(settings)(parsed.modelId),
      );
    }
    case 'openai-compatible':
      return compatibleModel(parsed, env, fetch);
    case 'replay':
      throw new AgencyError(
        'invalid_model_spec',
        `Model spec "${spec}" replays a cassette file, which resolveModel does not read: use ` +
          `replayModel(${JSON.stringify(parsed.path)}) from 'agency/testing'. The CLI's --model and a task spec's ` +
          '"model" take replay: specs as they are.',
        { details: { spec } },
      );
  }
}

function compatibleModel(
  { baseURL, modelId }: Extract<ModelSpec, { kind: 'openai-compatible' }>,
  env: Env,
  fetch: typeof globalThis.fetch | undefined,
): LanguageModelV4 {
  const settings = {
    name: 'openai-compatible',
    baseURL,
    includeUsage: true,
    // vLLM, llama.cpp, LM Studio and Ollama all take `response_format: json_schema`; LM Studio refuses the
    // `json_object` the provider would send otherwise, and `json_object` does not tell the model the schema.
    supportsStructuredOutputs: true,
    ...optional('apiKey', env.OPENAI_COMPATIBLE_API_KEY),
    ...optional('fetch', fetch),
  };
  const model = lazyModel('openai-compatible.chat', modelId, async () =>
    (await import('@ai-sdk/openai-compatible')).createOpenAICompatible(settings).chatModel(modelId),
  );
  // Its price is found by the host it sends to (api.deepseek.com, api.together.xyz, …).
  setModelEndpoint(model, baseURL);
  return model;
}

// Node, Deno and Bun have process.env; a browser or a worker has no environment, and keys come in `env`.
function processEnv(): Env {
  return (globalThis as { process?: { env?: Env } }).process?.env ?? {};
}

function requireKey(env: Env, name: string, spec: string): string {
  const value = env[name]?.trim();
  if (value) return value;
  throw new AgencyError(
    'missing_api_key',
    `Model "${spec}" needs an API key: set the ${name} environment variable (export ${name}=…), ` +
      'or use a replay: cassette to run offline.',
    { details: { variable: name, spec } },
  );
}

function checkModelObject(model: unknown): LanguageModelV4 {
  const candidate = model as Partial<LanguageModelV4> | null;
  if (
    candidate !== null &&
    typeof candidate === 'object' &&
    candidate.specificationVersion === 'v4' &&
    typeof candidate.doGenerate === 'function' &&
    typeof candidate.doStream === 'function'
  ) {
    return candidate as LanguageModelV4;
  }
  throw new AgencyError(
    'invalid_model_spec',
    'The model is neither a spec string nor a LanguageModelV4 object (specificationVersion "v4" with doGenerate and ' +
      'doStream). Pass e.g. "openai:gpt-4o", or a model from an @ai-sdk provider.',
  );
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
