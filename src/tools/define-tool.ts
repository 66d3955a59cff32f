import type { JSONSchema7 } from '@ai-sdk/provider';
import { z } from 'zod';
import { AgencyError } from '../core/errors.ts';
import type { JsonValue, ToolResultOutput } from '../core/messages.ts';

import { TOOL_EFFECTS, type ToolEffect } from '../core/tool-types.ts';

export { TOOL_EFFECTS, type ToolEffect };

/** The task a tool runs for, when it runs inside an agent. */
export type ToolTask = { readonly input: string; readonly context?: Readonly<Record<string, unknown>> };

/** What a tool receives besides its input. */
export type ToolContext = {
  /** Aborts when the call times out or its run is cancelled. Long-running tools should honour it. */
  signal: AbortSignal;
  /** The id of the model's tool call. */
  toolCallId: string;
  /** The task being run, when the tool runs inside an agent. */
  task?: ToolTask | undefined;
  /** Set when the tool is called again after its run was suspended by `requestSuspend` and then resumed. */
  resumeData?: JsonValue | undefined;
};

/** A tool the model can call. Create one with {@link defineTool}. */
export type Tool<Input = unknown, Output = unknown> = {
  readonly name: string;
  readonly description: string;
  /** The zod schema the arguments are validated against. */
  readonly input: z.ZodType<Input>;
  /** The JSON Schema the model sees, generated once from `input`. */
  readonly inputSchema: JSONSchema7;
  readonly effects: ToolEffect;
  /** Safe to run twice with the same input (a re-run after a crash is harmless). */
  readonly idempotent: boolean;
  /** How long one call may take before it is cancelled. */
  readonly timeoutMs: number;
  execute(input: Input, context: ToolContext): Promise<Output> | Output;
  /** Turns the output into what the model sees. By default strings are text and anything else is JSON. */
  toModelOutput?(output: Output): ToolResultOutput;
};

/** Options for {@link defineTool}. */
export type DefineToolOptions<Schema extends z.ZodType, Output> = {
  /** Letters, digits, `_` and `-`, at most 64 characters (what every provider accepts). */
  name: string;
  /** What the tool does and when to use it; the model reads this. */
  description: string;
  /** A zod object schema for the arguments. */
  input: Schema;
  execute(input: z.output<Schema>, context: ToolContext): Promise<Output> | Output;
  /** @default 30000 */
  timeoutMs?: number;
  effects: ToolEffect;
  /** @default true for `read` tools, false otherwise */
  idempotent?: boolean;
  toModelOutput?(output: Output): ToolResultOutput;
};

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Declares a tool. The arguments the model sends are validated against `input`; the model sees the JSON Schema
 * generated from it with `z.toJSONSchema`.
 *
 * @throws AgencyError `tool_definition_invalid` naming the field to fix.
 * @example
 * const add = defineTool({
 *   name: 'add',
 *   description: 'Adds two numbers',
 *   input: z.object({ a: z.number(), b: z.number() }),
 *   effects: 'read',
 *   execute: ({ a, b }) => a + b,
 * });
 */
export function defineTool<Schema extends z.ZodType, Output>(
  options: DefineToolOptions<Schema, Output>,
): Tool<z.output<Schema>, Output> {
  const { name, description, input, execute, timeoutMs = 30_000, effects, toModelOutput } = options;
  const invalid = (field: string, problem: string): never => {
    throw new AgencyError('tool_definition_invalid', `Tool "${String(name)}": "${field}" ${problem}`, {
      details: { tool: name, field },
    });
  };
  if (typeof name !== 'string' || !NAME.test(name)) invalid('name', 'must be 1-64 letters, digits, "_" or "-"');
  if (typeof description !== 'string' || description.trim() === '')
    invalid('description', 'must be a non-empty string');
  if (!(input instanceof z.ZodType)) invalid('input', 'must be a zod schema, e.g. z.object({ … })');
  if (typeof execute !== 'function') invalid('execute', 'must be a function');
  if (!TOOL_EFFECTS.includes(effects)) invalid('effects', `must be one of ${TOOL_EFFECTS.join(', ')}`);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) invalid('timeoutMs', 'must be a positive number of milliseconds');
  const inputSchema = toInputSchema(input, invalid);
  return Object.freeze({
    name,
    description,
    input: input as z.ZodType<z.output<Schema>>,
    inputSchema,
    effects,
    idempotent: options.idempotent ?? effects === 'read',
    timeoutMs,
    execute,
    ...(toModelOutput ? { toModelOutput } : {}),
  });
}

function toInputSchema(input: z.ZodType, invalid: (field: string, problem: string) => never): JSONSchema7 {
  let schema: JSONSchema7;
  try {
    schema = toModelJsonSchema(input);
  } catch (cause) {
    return invalid('input', `cannot be converted to JSON Schema (${(cause as Error).message})`);
  }
  if (schema.type !== 'object')
    invalid('input', 'must be an object schema, e.g. z.object({ … }); providers require it');
  return deepFreeze(schema);
}

/**
 * The JSON Schema a model is given for a zod schema: draft 7, describing what the model writes (zod's input), with
 * every object closed (`additionalProperties: false`) unless the schema says otherwise. Tool inputs and structured
 * answers both use it.
 * @throws Error when zod cannot express the schema in JSON Schema (transforms, custom types).
 * @example
 * toModelJsonSchema(z.object({ city: z.string() })) // { type: 'object', properties: …, additionalProperties: false }
 */
export function toModelJsonSchema(schema: z.ZodType): JSONSchema7 {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' });
  return closeObjects(rest);
}

// Models add stray keys unless told not to; zod would strip them silently.
function closeObjects(node: unknown): Record<string, unknown> {
  if (Array.isArray(node)) return node.map(closeObjects) as never;
  if (typeof node !== 'object' || node === null) return node as never;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = closeObjects(value);
  if (out.type === 'object' && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}
