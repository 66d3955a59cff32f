import { Ajv, type Options, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import { linearRegExp } from './linear-regexp.ts';

/** The JSON Schema drafts agency validates. */
export type SchemaDialect = 'draft-07' | '2019-09' | '2020-12';

/**
 * The dialect a `$schema` URI names: 2020-12 or 2019-09 when it says so, draft-07 for any other URI, and `fallback`
 * without one.
 *
 * @example
 * schemaDialect('https://json-schema.org/draft/2020-12/schema') // '2020-12'
 */
export function schemaDialect(uri: unknown, fallback: SchemaDialect = 'draft-07'): SchemaDialect {
  if (typeof uri !== 'string') return fallback;
  if (uri.includes('2020-12')) return '2020-12';
  if (uri.includes('2019-09')) return '2019-09';
  return 'draft-07';
}

/**
 * An ajv for `dialect` whose `pattern` and `patternProperties` run on {@link linearRegExp} unless `options.code`
 * names another engine: every schema agency validates against may come from a model or a server, and V8's
 * backtracking `RegExp` lets one pattern block the event loop for seconds.
 */
export function createSchemaAjv(dialect: SchemaDialect, options: Options): Ajv {
  const withEngine: Options = { ...options, code: { regExp: linearRegExp, ...options.code } };
  if (dialect === '2020-12') return new Ajv2020(withEngine);
  if (dialect === '2019-09') return new Ajv2019(withEngine);
  return new Ajv(withEngine);
}

/** The options json_validate and Verify's checks validate with. */
export const CHECK_OPTIONS: Options = {
  allErrors: true,
  // Schemas written by models carry descriptions, examples and vendor keywords; they are not errors here.
  strict: false,
  // ajv-formats is not a dependency: "format" is an annotation, not a check.
  validateFormats: false,
  addUsedSchema: false,
};

/**
 * Compiles one schema at a time, draft-07 unless its `$schema` names 2019-09 or 2020-12, on one ajv per dialect
 * (building one compiles its meta-schemas, ~60 ms; compiling a schema on it ~4 ms). Throws AgencyError
 * `schema_invalid` with ajv's reason for a schema that does not compile, such as a pattern with lookahead.
 */
export function createSchemaCompiler(options: Options = CHECK_OPTIONS): (schema: unknown) => ValidateFunction {
  const instances = new Map<SchemaDialect, Ajv>();
  return (schema) => {
    if ((typeof schema !== 'object' || schema === null || Array.isArray(schema)) && typeof schema !== 'boolean') {
      throw new AgencyError('schema_invalid', 'The schema must be a JSON object (or true/false)');
    }
    const dialect = schemaDialect(typeof schema === 'object' ? (schema as { $schema?: unknown }).$schema : undefined);
    let ajv = instances.get(dialect);
    if (!ajv) {
      ajv = createSchemaAjv(dialect, options);
      instances.set(dialect, ajv);
    }
    try {
      return ajv.compile(schema as Record<string, unknown>);
    } catch (error) {
      throw new AgencyError(
        'schema_invalid',
        `The schema is invalid: ${errorMessage(error)}. Fix the schema and retry.`,
      );
    } finally {
      // Every call brings a fresh schema object; without this, ajv's cache would keep each one forever.
      ajv.removeSchema(schema);
    }
  };
}
