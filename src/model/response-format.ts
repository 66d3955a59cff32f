import type { JSONSchema7, SharedV4ProviderOptions } from '@ai-sdk/provider';
import type { ModelRequest } from './call-model.ts';

/** The request fields that ask a model for a JSON answer matching a schema. */
export type JsonAnswerRequest = Required<Pick<ModelRequest, 'responseFormat'>> & Pick<ModelRequest, 'providerOptions'>;

/** What {@link jsonAnswerRequest} needs: the answer's JSON Schema, and a name and description the model sees. */
export type JsonAnswerSpec = { schema: JSONSchema7; name?: string | undefined; description?: string | undefined };

// The keywords OpenAI's strict structured outputs accept (platform.openai.com/docs/guides/structured-outputs,
// "Supported schemas"). Any other keyword, an open or partly optional object, or `oneOf` makes it refuse the
// request with HTTP 400.
const STRICT_KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'anyOf',
  'enum',
  'const',
  'description',
  'title',
  '$ref',
  '$defs',
  'definitions',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
]);

/**
 * The `responseFormat` (and, when needed, `providerOptions`) of a request whose answer must be JSON matching
 * `schema`. Each provider maps it to its own API: OpenAI Responses and Chat send `json_schema`; Anthropic sends
 * `output_config.format` on models that support it and otherwise a forced `json` tool whose input becomes the
 * answer's text; an OpenAI-compatible server gets `json_schema` when its provider was created with
 * `supportsStructuredOutputs` (the `openai-compatible:` spec does so) and `json_object` otherwise.
 *
 * OpenAI's strict mode refuses schemas with optional properties, open objects (records) or keywords it does not
 * support, so for such a schema strict mode is switched off (`strictJsonSchema: false`): the model is still given
 * the schema, and the answer is validated afterwards.
 *
 * @example
 * const request = { prompt, ...jsonAnswerRequest({ schema: toJsonSchema(planSchema), name: 'plan' }) };
 */
export function jsonAnswerRequest({ schema, name, description }: JsonAnswerSpec): JsonAnswerRequest {
  const responseFormat: JsonAnswerRequest['responseFormat'] = {
    type: 'json',
    schema,
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
  };
  if (isStrictJsonSchema(schema)) return { responseFormat };
  const lenient: SharedV4ProviderOptions = {
    openai: { strictJsonSchema: false },
    openaiCompatible: { strictJsonSchema: false },
  };
  return { responseFormat, providerOptions: lenient };
}

/**
 * True when OpenAI's strict structured outputs accept `schema`: every object closed (`additionalProperties: false`)
 * with every property required, no `oneOf`, and only the keywords strict mode supports.
 *
 * @example
 * isStrictJsonSchema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false }) // true
 */
export function isStrictJsonSchema(schema: unknown): boolean {
  if (typeof schema === 'boolean') return true;
  if (typeof schema !== 'object' || schema === null) return false;
  const node = schema as Record<string, unknown>;
  if (Object.keys(node).some((key) => !STRICT_KEYWORDS.has(key))) return false;
  if (node.properties !== undefined || node.type === 'object') {
    const properties = (node.properties ?? {}) as Record<string, unknown>;
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    if (node.additionalProperties !== false) return false;
    if (Object.keys(properties).some((key) => !required.has(key))) return false;
    if (!Object.values(properties).every(isStrictJsonSchema)) return false;
  }
  const children = [
    node.items,
    ...(Array.isArray(node.anyOf) ? node.anyOf : []),
    ...Object.values(node.$defs ?? {}),
    ...Object.values(node.definitions ?? {}),
  ];
  return children.every((child) => child === undefined || isStrictJsonSchema(child));
}
