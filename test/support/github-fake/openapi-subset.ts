// GitHub's published OpenAPI description, cut to the operations the GitHub director uses
// (test/fixtures/github-openapi-subset.json, made by scripts/extract-github-openapi.mjs), compiled with ajv: the fake
// GitHub checks every request body it receives and every answer it sends against it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/** The committed subset. */
export const SUBSET_FILE = join(import.meta.dirname, '..', '..', 'fixtures', 'github-openapi-subset.json');

type Schema = Record<string, unknown>;
type Operation = {
  method: string;
  path: string;
  parameters: Array<{ name: string; in: string; required: boolean; schema: Schema }>;
  requestBody?: { required: boolean; schema: Schema };
  responses: Record<string, Schema | null>;
};
type Subset = { operations: Record<string, Operation>; components: { schemas: Record<string, Schema> } };

/** One operation of the subset, compiled. */
export type CompiledOperation = {
  id: string;
  method: string;
  /** The path template, e.g. `/repos/{owner}/{repo}/issues/{issue_number}`. */
  path: string;
  /** Matches a request path; its groups are the template's parameters, in order. */
  pattern: RegExp;
  names: string[];
  /** Problems with a request body (none: it is valid). */
  checkBody(body: unknown): string[];
  /** Problems with an answer: against the operation's schema for `status`, or GitHub's basic error for others. */
  checkAnswer(status: number, body: unknown): string[];
};

const REF = 'github:';

/**
 * OpenAPI 3.0 schema → JSON Schema for ajv: `nullable: true` becomes a `null` type (or an `anyOf` with one, where no
 * `type` is given) and references point at the schemas added under {@link REF}.
 */
function toJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toJsonSchema);
  if (value === null || typeof value !== 'object') return value;
  const source = value as Schema;
  const out: Schema = {};
  for (const [key, inner] of Object.entries(source)) {
    if (key === '$ref') out[key] = String(inner).replace('#/components/schemas/', REF);
    else if (key === 'properties')
      out[key] = Object.fromEntries(Object.entries(inner as Schema).map(([name, s]) => [name, toJsonSchema(s)]));
    else if (key !== 'nullable') out[key] = toJsonSchema(inner);
  }
  if (source.nullable !== true) return out;
  if (typeof out.type === 'string') {
    out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: 'null' }] };
}

const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/,
  uri: /^[a-z][a-z0-9+.-]*:\S*$/i,
  email: /^[^\s@]+@[^\s@]+$/,
  int64: /^-?\d+$/,
  'repo.nwo': /^[^/\s]+\/[^/\s]+$/,
};

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? [])
    .slice(0, 8)
    .map((error) => `${error.instancePath || '(body)'} ${error.message ?? 'is invalid'}`);
}

/** Loads and compiles the subset (once per process: ajv compiles each schema the first time it is used). */
export function loadOpenApiSubset(file = SUBSET_FILE): Map<string, CompiledOperation> {
  const subset = JSON.parse(readFileSync(file, 'utf8')) as Subset;
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false });
  ajv.addKeyword('discriminator');
  for (const [name, pattern] of Object.entries(FORMATS))
    ajv.addFormat(name, name === 'int64' ? { type: 'number', validate: Number.isInteger } : pattern);
  for (const [name, schema] of Object.entries(subset.components.schemas))
    ajv.addSchema(toJsonSchema(schema) as Schema, `${REF}${name}`);
  const basicError = ajv.getSchema(`${REF}basic-error`)!;
  const compiled = new Map<string, CompiledOperation>();
  for (const [id, operation] of Object.entries(subset.operations)) {
    const lazy = new Map<string, ValidateFunction>();
    const validator = (key: string, schema: Schema) => {
      let validate = lazy.get(key);
      if (!validate) lazy.set(key, (validate = ajv.compile(toJsonSchema(schema) as Schema)));
      return validate;
    };
    const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!);
    compiled.set(id, {
      id,
      method: operation.method,
      path: operation.path,
      names,
      pattern: new RegExp(`^${operation.path.replace(/\{\w+\}/g, '([^/]+)')}$`),
      checkBody(body) {
        if (!operation.requestBody) return [];
        const validate = validator('body', operation.requestBody.schema);
        return validate(body) ? [] : describe(validate.errors);
      },
      checkAnswer(status, body) {
        const schema = operation.responses[String(status)];
        if (schema === null) return [];
        if (schema === undefined) {
          if (status < 400) return [`${status} is not an answer ${id} documents`];
          return basicError(body) ? [] : describe(basicError.errors);
        }
        const validate = validator(String(status), schema);
        return validate(body) ? [] : describe(validate.errors);
      },
    });
  }
  return compiled;
}
