import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import { z } from 'zod';
import { errorMessage } from '../core/errors.ts';
import { lenientLinearRegExp } from '../tools/json-schema/linear-regexp.ts';
import { createSchemaAjv, type SchemaDialect, schemaDialect } from '../tools/json-schema/schema-ajv.ts';

/** Compiles JSON Schemas into zod schemas that validate with ajv. Holds one ajv instance per dialect. */
export type JsonSchemaCompiler = {
  /**
   * Compiles `schema` once and returns a zod schema that delegates to the compiled validator, so agency's
   * `runToolCall` reports each failing field as an issue with its path.
   * @throws Error when ajv cannot compile the schema in any dialect.
   */
  compile(schema: Record<string, unknown>): z.ZodType<Record<string, unknown>>;
};

const OPTIONS: Options = {
  // Servers write schemas for their own validators: unknown keywords and formats are not our business to refuse.
  strict: false,
  allErrors: true,
  validateFormats: false,
  validateSchema: false,
  // Two servers (or two refreshes) may use the same `$id`; registering it globally would make the second fail.
  addUsedSchema: false,
  // Defaults belong to the server; the arguments are sent as the model wrote them.
  useDefaults: false,
  coerceTypes: false,
  // Patterns match in linear time, so arguments a model wrote cannot stall the process on a server's pattern; one
  // that needs backtracking (lookahead, backreferences) is left to the server.
  code: { regExp: lenientLinearRegExp },
};

/** Creates a compiler. Create one per connection, so its cached validators go away with it. */
export function createJsonSchemaCompiler(): JsonSchemaCompiler {
  const instances = new Map<SchemaDialect, Ajv>();
  const instance = (dialect: SchemaDialect): Ajv => {
    let ajv = instances.get(dialect);
    if (!ajv) {
      ajv = createSchemaAjv(dialect, OPTIONS);
      instances.set(dialect, ajv);
    }
    return ajv;
  };
  return {
    compile(schema) {
      const validate = compileAny(schema, instance);
      return z.unknown().transform((value, context) => {
        if (validate(value)) return value as Record<string, unknown>;
        for (const issue of toIssues(validate.errors ?? [])) context.addIssue({ code: 'custom', ...issue });
        return z.NEVER;
      });
    },
  };
}

// MCP says a schema without `$schema` is 2020-12, but many servers emit draft-07 shapes (`items: [...]`) without
// saying so: when the declared dialect cannot compile a schema, the others are tried before giving up.
function compileAny(schema: Record<string, unknown>, instance: (dialect: SchemaDialect) => Ajv): ValidateFunction {
  const first = schemaDialect(schema.$schema, '2020-12');
  const order: SchemaDialect[] = [first, ...(['draft-07', '2020-12', '2019-09'] as const).filter((d) => d !== first)];
  let firstError: unknown;
  for (const dialect of order) {
    try {
      return instance(dialect).compile(schema);
    } catch (error) {
      firstError ??= error;
    }
  }
  throw new Error(`its input schema does not compile: ${errorMessage(firstError)}`);
}

/** Turns ajv errors into issues with a path to the field at fault and a message that says what to send. */
export function toIssues(errors: readonly ErrorObject[]): Array<{ path: PropertyKey[]; message: string }> {
  const seen = new Set<string>();
  const issues: Array<{ path: PropertyKey[]; message: string }> = [];
  for (const error of errors) {
    const path = pointerToPath(error.instancePath);
    let message = error.message ?? `fails "${error.keyword}"`;
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
      path.push(params.missingProperty);
      message = 'is required';
    } else if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
      path.push(params.additionalProperty);
      message = 'is not allowed';
    } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
      message = `must be one of ${params.allowedValues.map((value) => JSON.stringify(value)).join(', ')}`;
    }
    const key = JSON.stringify([path, message]);
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path, message });
  }
  return issues;
}

function pointerToPath(pointer: string): PropertyKey[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => {
      const key = segment.replace(/~1/g, '/').replace(/~0/g, '~');
      return /^(0|[1-9]\d*)$/.test(key) ? Number(key) : key;
    });
}
