import { createRequire } from 'node:module';
import type { Ajv2020 as Ajv2020Class, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { stateSchema } from './state.ts';

// ajv is loaded when the first state is checked, i.e. by a run writing its state: the commands that only read a
// task folder (agency status, tail, approvals) import this module through the state store and would otherwise pay
// about 25 ms at every start for a validator they never call. ajv is CommonJS, so it can be required synchronously.
const require = createRequire(import.meta.url);

/** The first problem found in a state: the field (dotted, quoted) and what is wrong with it. */
export type StateProblem = { field: string; message: string };

let compiled: ValidateFunction | undefined;

/**
 * Checks a state against `agent.state.v1` before it is written, returning the first problem or `undefined`.
 *
 * Every step boundary writes the state right after an fsync, when the CPU caches are cold; there a walk through
 * zod's schema objects costs about 50 µs, against about 15 µs for the single function ajv generates. The function
 * is compiled once, from the JSON Schema zod generates from {@link stateSchema}, so both accept the same states;
 * reading a state back still goes through zod (see `parseState`).
 */
export function findStateProblem(state: unknown): StateProblem | undefined {
  compiled ??= compile();
  if (compiled(state)) return undefined;
  return describe(compiled.errors?.[0]);
}

function compile(): ValidateFunction {
  const { Ajv2020 } = require('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020Class };
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false });
  return ajv.compile(finiteNumbers(z.toJSONSchema(stateSchema, { target: 'draft-2020-12', io: 'output' })));
}

// zod refuses Infinity and NaN, which JSON would write as null; JSON Schema has no such rule, so every number is
// bounded to the finite range (a NaN fails any bound).
function finiteNumbers<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(finiteNumbers) as T;
  if (schema === null || typeof schema !== 'object') return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) copy[key] = finiteNumbers(value);
  const types = Array.isArray(copy.type) ? (copy.type as unknown[]) : [copy.type];
  if (types.includes('number') || types.includes('integer')) {
    copy.maximum ??= Number.MAX_VALUE;
    if (copy.minimum === undefined && copy.exclusiveMinimum === undefined) copy.minimum = -Number.MAX_VALUE;
  }
  return copy as T;
}

function describe(error: ErrorObject | undefined): StateProblem {
  if (!error) return { field: 'the state', message: 'is invalid' };
  const path = error.instancePath.split('/').slice(1);
  const named = (key: unknown, message: string): StateProblem => ({ field: quoted([...path, String(key)]), message });
  if (error.keyword === 'additionalProperties') return named(error.params.additionalProperty, 'is not allowed');
  if (error.keyword === 'required') return named(error.params.missingProperty, 'is missing');
  return { field: quoted(path), message: `is invalid: ${plainMessage(error)}` };
}

function plainMessage({ keyword, params, message }: ErrorObject): string {
  if ((keyword === 'maximum' || keyword === 'minimum') && Math.abs(Number(params.limit)) === Number.MAX_VALUE) {
    return 'must be a finite number';
  }
  if (keyword === 'pattern' && String(params.pattern).length > 40) return 'is not in the expected format';
  return message ?? 'unknown problem';
}

function quoted(path: string[]): string {
  return path.length ? `"${path.join('.')}"` : 'the state';
}
