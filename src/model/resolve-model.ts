import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { AgencyError } from '../core/errors.ts';
import { setModelEndpoint } from '../core/model-prices.ts';
import { replayModel } from './cassette/replay-model.ts';
import { parseModelSpec } from './model-spec.ts';

/** Options for {@link resolveModel}. */
export type ResolveModelOptions = {
  /** Where API keys and base URLs are read from. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** The fetch the providers use; inject one to serve recorded responses. @default globalThis.fetch */
  fetch?: typeof globalThis.fetch;
  /** For `replay:` specs: match calls by order only, not by request content. @default false */
  lenientReplay?: boolean;
  /** For `replay:` specs: relative cassette paths resolve against this directory. @default process.cwd() */
  cwd?: string;
};

/**
 * Turns a model spec, or any `LanguageModelV4` object, into a model.
 *
 * - `openai:<model>`: OpenAI Responses API; key from `OPENAI_API_KEY`, optional `OPENAI_BASE_URL`.
 * - `openai-chat:<model>`: OpenAI Chat Completions API, same variables.
 * - `anthropic:<model>`: key from `ANTHROPIC_API_KEY`, optional `ANTHROPIC_BASE_URL`.
 * - `openai-compatible:<baseURL>#<model>`: vLLM, llama.cpp, LM Studio, Ollama; optional `OPENAI_COMPATIBLE_API_KEY`.
 *   A structured answer is asked for with `response_format: json_schema`.
 * - `replay:<cassette path>`: serves a recorded cassette offline.
 *
 * @throws AgencyError `invalid_model_spec` for a malformed spec, `missing_api_key` naming the variable to set.
 * @example
 * const model = resolveModel('anthropic:claude-sonnet-4-5');
 */
export function resolveModel(spec: string | LanguageModelV4, options: ResolveModelOptions = {}): LanguageModelV4 {
  if (typeof spec !== 'string') return checkModelObject(spec);
  const { env = process.env, fetch } = options;
  const parsed = parseModelSpec(spec);
  switch (parsed.kind) {
    case 'openai': {
      const provider = createOpenAI({
        apiKey: requireKey(env, 'OPENAI_API_KEY', spec),
        ...optional('baseURL', env.OPENAI_BASE_URL),
        ...optional('fetch', fetch),
      });
      return parsed.api === 'chat' ? provider.chat(parsed.modelId) : provider.responses(parsed.modelId);
    }
    case 'anthropic':
      return createAnthropic({
        apiKey: requireKey(env, 'ANTHROPIC_API_KEY', spec),
        ...optional('baseURL', env.ANTHROPIC_BASE_URL),
        ...optional('fetch', fetch),
      })(parsed.modelId);
    case 'openai-compatible': {
      const model = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: parsed.baseURL,
        includeUsage: true,
        // vLLM, llama.cpp, LM Studio and Ollama all take `response_format: json_schema`; LM Studio refuses the
        // `json_object` the provider would send otherwise, and `json_object` does not tell the model the schema.
        supportsStructuredOutputs: true,
        ...optional('apiKey', env.OPENAI_COMPATIBLE_API_KEY),
        ...optional('fetch', fetch),
      }).chatModel(parsed.modelId);
      // Its price is found by the host it sends to (api.deepseek.com, api.together.xyz, …).
      setModelEndpoint(model, parsed.baseURL);
      return model;
    }
    case 'replay':
      return replayModel(parsed.path, {
        ...optional('lenient', options.lenientReplay),
        ...optional('cwd', options.cwd),
      });
  }
}

function requireKey(env: Readonly<Record<string, string | undefined>>, name: string, spec: string): string {
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
