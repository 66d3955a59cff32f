import { AgencyError } from '../core/errors.ts';

/** A parsed model spec string. */
export type ModelSpec =
  | { kind: 'openai'; api: 'responses' | 'chat'; modelId: string }
  | { kind: 'anthropic'; modelId: string }
  | { kind: 'openai-compatible'; baseURL: string; modelId: string }
  | { kind: 'replay'; path: string };

const FORMS = [
  'openai:<model>  (Responses API), e.g. openai:gpt-4o',
  'openai-chat:<model>  (Chat Completions API), e.g. openai-chat:gpt-4o-mini',
  'anthropic:<model>, e.g. anthropic:claude-sonnet-4-5',
  'openai-compatible:<baseURL>#<model>, e.g. openai-compatible:http://127.0.0.1:8000/v1#llama-3.1-8b',
  'replay:<cassette path>, e.g. replay:examples/research/cassette.jsonl',
];

/**
 * Parses a model spec such as `openai:gpt-4o`, `anthropic:claude-sonnet-4-5`,
 * `openai-compatible:http://127.0.0.1:8000/v1#llama` or `replay:path/to/cassette.jsonl`.
 *
 * @throws AgencyError `invalid_model_spec` naming the spec and listing the accepted forms.
 */
export function parseModelSpec(spec: string): ModelSpec {
  if (typeof spec !== 'string' || spec.trim() === '') fail(String(spec), 'it is empty');
  const colon = spec.indexOf(':');
  if (colon <= 0) fail(spec, 'it has no "<provider>:" prefix');
  const provider = spec.slice(0, colon);
  const rest = spec.slice(colon + 1).trim();
  switch (provider) {
    case 'openai':
    case 'openai-chat':
      if (!isModelId(rest)) fail(spec, 'the model id is missing or contains spaces');
      return { kind: 'openai', api: provider === 'openai' ? 'responses' : 'chat', modelId: rest };
    case 'anthropic':
      if (!isModelId(rest)) fail(spec, 'the model id is missing or contains spaces');
      return { kind: 'anthropic', modelId: rest };
    case 'openai-compatible':
      return parseCompatible(spec, rest);
    case 'replay':
      if (rest === '') fail(spec, 'the cassette path is missing');
      return { kind: 'replay', path: rest };
    default:
      return fail(spec, `"${provider}" is not a known provider`);
  }
}

function parseCompatible(spec: string, rest: string): ModelSpec {
  const hash = rest.lastIndexOf('#');
  if (hash < 0) fail(spec, 'it needs "#<model>" after the base URL');
  const baseURL = rest.slice(0, hash);
  const modelId = rest.slice(hash + 1);
  if (!isModelId(modelId)) fail(spec, 'the model id after "#" is missing or contains spaces');
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    return fail(spec, `"${baseURL}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(spec, 'the base URL must be http or https');
  return { kind: 'openai-compatible', baseURL: baseURL.replace(/\/+$/, ''), modelId };
}

function isModelId(value: string): boolean {
  return value.length > 0 && !/\s/.test(value);
}

function fail(spec: string, reason: string): never {
  throw new AgencyError(
    'invalid_model_spec',
    `Model spec "${spec}" is invalid: ${reason}. Use one of:\n  ${FORMS.join('\n  ')}`,
    { details: { spec } },
  );
}
