import type { ErrorObject } from 'ajv';
import { z } from 'zod';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import { defineTool, type Tool } from '../define-tool.ts';
import { readFileInScope } from '../guards/path-io.ts';
import type { PathRoot } from '../guards/path-roots.ts';
import { createSchemaCompiler } from '../json-schema/schema-ajv.ts';
import { positiveLimit } from './option-checks.ts';

/** Options for {@link createJsonValidateTool}. */
export type JsonValidateToolOptions = {
  /** Where `path` and `schema_path` may point. Without roots, only inline values and schemas are accepted. */
  roots?: readonly PathRoot[];
  /** Files larger than this are refused. @default 10485760 (10 MiB) */
  maxFileBytes?: number;
  /** Errors listed at most; `truncated` says there were more. @default 50 */
  maxErrors?: number;
};

/** What `json_validate` takes: one of `value` or `path`, and one of `schema` or `schema_path`. */
export type JsonValidateInput = {
  value?: unknown;
  path?: string | undefined;
  schema?: Record<string, unknown> | undefined;
  schema_path?: string | undefined;
};

/** One way the value breaks the schema. `path` is a JSON Pointer into the value; `/` is the value itself. */
export type JsonValidationError = { path: string; message: string };

/** What `json_validate` returns. */
export type JsonValidateOutput = { valid: boolean; errors: JsonValidationError[]; truncated: boolean };

/**
 * `json_validate` (effects `read`, idempotent): validates a JSON value, or a JSON file inside the read roots, against
 * a JSON Schema (draft-07 by default; 2019-09 and 2020-12 by `$schema`) with ajv. Its `pattern`s match in linear
 * time (see `linearRegExp`), so a model's schema cannot stall the process. A schema that does not compile, a
 * pattern with lookahead or a backreference among them, fails with `schema_invalid`; a value that does not match is
 * a result, `{ valid: false, errors }`.
 *
 * @example
 * const validate = createJsonValidateTool({ roots: ['/runs/t1/progress'] });
 */
export function createJsonValidateTool({
  roots,
  maxFileBytes = 10 * 1024 * 1024,
  maxErrors = 50,
}: JsonValidateToolOptions = {}): Tool<JsonValidateInput, JsonValidateOutput> {
  positiveLimit('json_validate', 'maxFileBytes', maxFileBytes);
  positiveLimit('json_validate', 'maxErrors', maxErrors);
  const compile = createSchemaCompiler();
  const load = async (path: string, field: string): Promise<unknown> => {
    if (!roots) throw new AgencyError('invalid_argument', `"${field}" needs read roots, and none are configured`);
    const bytes = await readFileInScope(roots, path, { maxBytes: maxFileBytes });
    try {
      return JSON.parse(bytes.toString('utf8')) as unknown;
    } catch (error) {
      throw new AgencyError('invalid_argument', `"${path}" is not valid JSON: ${errorMessage(error)}`, {
        details: { path },
      });
    }
  };
  return defineTool({
    name: 'json_validate',
    description:
      'Check a JSON value, or a JSON file, against a JSON Schema. Returns valid and the errors, each with a JSON ' +
      'Pointer path into the value.',
    input: z
      .object({
        value: z.unknown().optional().describe('The JSON value to check'),
        path: z.string().min(1).optional().describe('Or: a JSON file to check, e.g. "progress/artifacts/out.json"'),
        schema: z.record(z.string(), z.unknown()).optional().describe('The JSON Schema, as an object'),
        schema_path: z.string().min(1).optional().describe('Or: a file holding the JSON Schema'),
      })
      .superRefine((args, context) => {
        if ((args.value === undefined) === (args.path === undefined)) {
          context.addIssue({ code: 'custom', path: ['value'], message: 'send exactly one of "value" or "path"' });
        }
        if ((args.schema === undefined) === (args.schema_path === undefined)) {
          context.addIssue({
            code: 'custom',
            path: ['schema'],
            message: 'send exactly one of "schema" or "schema_path"',
          });
        }
      }),
    effects: 'read',
    execute: async (args: JsonValidateInput) => {
      const schema = args.schema ?? (await load(args.schema_path ?? '', 'schema_path'));
      const validate = compile(schema);
      const value = args.path === undefined ? args.value : await load(args.path, 'path');
      if (validate(value)) return { valid: true, errors: [], truncated: false };
      const errors = (validate.errors ?? []).map(describe);
      return { valid: false, errors: errors.slice(0, maxErrors), truncated: errors.length > maxErrors };
    },
  });
}

function describe(error: ErrorObject): JsonValidationError {
  const params = error.params as { missingProperty?: string; additionalProperty?: string };
  const child = params.missingProperty ?? params.additionalProperty;
  const path = child === undefined ? error.instancePath : `${error.instancePath}/${escapePointer(child)}`;
  const message =
    params.additionalProperty !== undefined
      ? 'is not allowed by the schema (additionalProperties)'
      : params.missingProperty !== undefined
        ? 'is required'
        : (error.message ?? error.keyword);
  return { path: path === '' ? '/' : path, message };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
