import { builtinPromptSet } from '../prompts/builtin-prompts.ts';
import type { PromptSet } from '../prompts/prompt-set.ts';
import type { JSONSchema7 } from '@ai-sdk/provider';
import type { z } from 'zod';
import { AgencyError } from '../core/errors.ts';
import { type JsonAnswerRequest, jsonAnswerRequest } from '../model/response-format.ts';
import { toModelJsonSchema } from '../tools/define-tool.ts';

/**
 * Asks for a structured answer: the final answer must be JSON matching `schema`, and the result carries it parsed,
 * as `result.object`.
 */
export type StructuredOutputOptions<OBJECT = unknown> = {
  /** The answer's schema. The model is given it as JSON Schema; the answer is parsed and validated with it. */
  schema: z.ZodType<OBJECT>;
  /** A name for the answer, which some providers pass on to the model (OpenAI's `json_schema.name`). */
  schemaName?: string | undefined;
  /** What the answer is, for the model. */
  schemaDescription?: string | undefined;
  /**
   * Follow-up turns that quote the validation errors when an answer does not match, before the run fails with
   * `structured_output_invalid`.
   * @default 1
   */
  maxRepairs?: number | undefined;
};

/** A structured answer asked for by one execution, prepared once for all its model calls. */
export type StructuredOutput = {
  schema: z.ZodType;
  jsonSchema: JSONSchema7;
  /** The request fields that ask the model for it. */
  request: JsonAnswerRequest;
  maxRepairs: number;
};

/**
 * The structured-output fields of a set of options, when it has a schema; none otherwise. Used to hand an
 * execution's schema on (to a resumed run, to an agent step).
 */
export function structuredOptionsOf({
  schema,
  schemaName,
  schemaDescription,
  maxRepairs,
}: Partial<StructuredOutputOptions>): Partial<StructuredOutputOptions> {
  if (schema === undefined) return {};
  return {
    schema,
    schemaName,
    schemaDescription,
    maxRepairs,
  };
}

/** An answer parsed against a schema: the object, or what is wrong with it, one line per problem. */
export type ParsedAnswer<OBJECT> = { success: true; object: OBJECT } | { success: false; issues: string[] };

/**
 * Prepares the structured answer of an execution.
 * @throws AgencyError `invalid_argument` when the schema cannot be given to a model as JSON Schema.
 */
export function prepareStructuredOutput({
  schema,
  schemaName,
  schemaDescription,
  maxRepairs = 1,
}: StructuredOutputOptions): StructuredOutput {
  if (!Number.isInteger(maxRepairs) || maxRepairs < 0) {
    throw new AgencyError('invalid_argument', '"maxRepairs" must be a whole number of at least 0, e.g. 1');
  }
  let jsonSchema: JSONSchema7;
  try {
    jsonSchema = toModelJsonSchema(schema);
  } catch (cause) {
    throw new AgencyError(
      'invalid_argument',
      `"schema" cannot be given to a model as JSON Schema (${(cause as Error).message}); use plain zod types`,
      { cause },
    );
  }
  const request = jsonAnswerRequest({
    schema: jsonSchema,
    name: schemaName,
    description: schemaDescription,
  });
  return { schema, jsonSchema, request, maxRepairs };
}

/**
 * Parses a model's answer as JSON and validates it with `schema`. The answer may be wrapped in a code fence or
 * surrounded by prose, as models without native structured output sometimes write it.
 *
 * @example
 * const parsed = parseStructuredAnswer(z.object({ city: z.string() }), '{"city":"Paris"}');
 * if (parsed.success) console.log(parsed.object.city);
 */
export function parseStructuredAnswer<OBJECT>(schema: z.ZodType<OBJECT>, text: string): ParsedAnswer<OBJECT> {
  const json = extractJson(text);
  if (json === undefined) return { success: false, issues: ['the answer is not valid JSON'] };
  const parsed = schema.safeParse(json);
  if (parsed.success) return { success: true, object: parsed.data };
  return {
    success: false,
    issues: parsed.error.issues.map((issue) => `"${issue.path.map(String).join('.') || '(answer)'}": ${issue.message}`),
  };
}

/**
 * The JSON value in a model's answer: the whole text, else the first fenced block, else the span from the first `{`
 * or `[` to the last matching bracket. Undefined when none parses.
 *
 * @example
 * extractJson('Here it is:\n```json\n{"a": 1}\n```') // { a: 1 }
 */
export function extractJson(text: string): unknown {
  const candidates = [text.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(text)?.[1];
  if (fenced !== undefined) candidates.push(fenced.trim());
  const spans = [text.indexOf('{'), text.indexOf('[')]
    .filter((start) => start >= 0)
    .sort((a, b) => a - b)
    .map((start) => text.slice(start, text.lastIndexOf(text[start] === '{' ? '}' : ']') + 1));
  candidates.push(...spans.filter((span) => span.length > 1));
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // Not this one; try the next reading.
    }
  }
  return undefined;
}

/**
 * The follow-up message of a repair turn: what is wrong, and the schema again, so a model whose provider ignored
 * the response format still learns the shape.
 */
export function repairInstruction(
  issues: readonly string[],
  jsonSchema: JSONSchema7,
  prompts: PromptSet = builtinPromptSet(),
): string {
  return prompts.render('agent.repair', {
    issues: issues.map((issue) => `- ${issue}`).join('\n'),
    schema: JSON.stringify(jsonSchema),
  }).text;
}

/** The error of a run whose answer still did not match its schema after every repair turn. */
export function structuredOutputError(issues: readonly string[], repairs: number): AgencyError {
  const fields = [...new Set(issues.map((issue) => /^"([^"]*)"/.exec(issue)?.[1]).filter((field) => field))];
  return new AgencyError(
    'structured_output_invalid',
    `The answer does not match the schema after ${repairs} repair turn(s):\n${issues.map((issue) => `- ${issue}`).join('\n')}`,
    { details: { issues: [...issues], fields } },
  );
}
