#!/usr/bin/env node
// Extracts the GitHub REST operations the GitHub director uses from GitHub's published OpenAPI description
// (`@octokit/openapi`, generated/api.github.com.json) into test/fixtures/github-openapi-subset.json: each operation's
// method, path, parameters, JSON request body and JSON responses, plus every component schema they reach. The fake
// GitHub of the tests validates what it receives and what it sends against this subset, and a test re-extracts it
// from the installed package, so a fake that drifts from GitHub fails.
//
//   node scripts/extract-github-openapi.mjs          writes the subset
//   node scripts/extract-github-openapi.mjs --check  exits 1 when the committed subset differs
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The operations the director (and the fake's test API acting as a human) use, by operationId. */
export const GITHUB_OPERATIONS = [
  'users/get-authenticated',
  'issues/list-for-repo',
  'issues/get',
  'issues/create',
  'issues/update',
  'issues/list-comments',
  'issues/create-comment',
  'issues/add-assignees',
  'reactions/list-for-issue',
  'reactions/create-for-issue',
  'reactions/list-for-issue-comment',
  'reactions/create-for-issue-comment',
  'pulls/create',
  'pulls/get',
  'pulls/list',
  'pulls/list-reviews',
  'pulls/create-review',
];

/** Schemas every error answer may be checked against, besides those the operations name. */
const EXTRA_SCHEMAS = ['basic-error', 'validation-error'];

// Prose and samples: not part of the shapes, and most of the bytes.
const DROPPED_KEYS = new Set(['description', 'example', 'examples', 'externalDocs', 'summary']);

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Where the subset is committed. */
export const SUBSET_FILE = join(root, 'test', 'fixtures', 'github-openapi-subset.json');
const SOURCE_FILE = 'generated/api.github.com.json';

/** Reads the published description from the installed `@octokit/openapi`. */
export function loadPublished() {
  const require = createRequire(import.meta.url);
  const packageDir = dirname(require.resolve('@octokit/openapi/package.json'));
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  return { version, spec: JSON.parse(readFileSync(join(packageDir, SOURCE_FILE), 'utf8')) };
}

/** The subset of `spec` for {@link GITHUB_OPERATIONS}; `version` is the package's, recorded as the source. */
export function extractSubset(spec, version) {
  const byId = new Map();
  for (const [path, item] of Object.entries(spec.paths))
    for (const [method, operation] of Object.entries(item))
      if (operation && typeof operation === 'object' && operation.operationId)
        byId.set(operation.operationId, { method, path, operation });
  const schemas = new Set(EXTRA_SCHEMAS);
  const operations = {};
  for (const id of GITHUB_OPERATIONS) {
    const found = byId.get(id);
    if (!found) throw new Error(`${SOURCE_FILE} has no operation ${id}`);
    const { method, path, operation } = found;
    const parameters = (operation.parameters ?? []).map((parameter) => {
      const { name, in: where, required = false, schema } = resolve(spec, parameter);
      return { name, in: where, required, schema: clean(schema) };
    });
    const body = operation.requestBody && resolve(spec, operation.requestBody).content?.['application/json'];
    const responses = {};
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      const schema = resolve(spec, response).content?.['application/json']?.schema;
      responses[status] = schema === undefined ? null : clean(schema);
    }
    operations[id] = {
      method: method.toUpperCase(),
      path,
      parameters,
      ...(body
        ? { requestBody: { required: operation.requestBody.required === true, schema: clean(body.schema) } }
        : {}),
      responses,
    };
  }
  collectRefs(operations, schemas);
  const components = {};
  const queue = [...schemas];
  while (queue.length > 0) {
    const name = queue.shift();
    if (components[name] !== undefined) continue;
    const schema = spec.components.schemas[name];
    if (schema === undefined) throw new Error(`${SOURCE_FILE} has no schema ${name}`);
    components[name] = clean(schema);
    const reached = new Set();
    collectRefs(components[name], reached);
    for (const next of reached) if (components[next] === undefined) queue.push(next);
  }
  const sorted = Object.fromEntries(
    Object.keys(components)
      .sort()
      .map((name) => [name, components[name]]),
  );
  return {
    source: { package: '@octokit/openapi', version, file: SOURCE_FILE, openapi: spec.openapi },
    operations,
    components: { schemas: sorted },
  };
}

// A `$ref` to components/parameters, requestBodies or responses, followed; schema refs are kept as they are.
function resolve(spec, value) {
  let current = value;
  for (let hops = 0; current && current.$ref && hops < 10; hops++) {
    const [, kind, name] = /^#\/components\/(\w+)\/(.+)$/.exec(current.$ref) ?? [];
    current = spec.components[kind]?.[name];
    if (current === undefined) throw new Error(`${SOURCE_FILE}: unresolved ${value.$ref}`);
  }
  return current;
}

function clean(value) {
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, inner] of Object.entries(value)) {
    // `properties` maps names to schemas: a property may itself be called "description".
    if (key === 'properties') out[key] = Object.fromEntries(Object.entries(inner).map(([k, v]) => [k, clean(v)]));
    else if (!DROPPED_KEYS.has(key) && !key.startsWith('x-')) out[key] = clean(inner);
  }
  return out;
}

function collectRefs(value, into) {
  if (Array.isArray(value)) for (const item of value) collectRefs(item, into);
  else if (value !== null && typeof value === 'object')
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') {
        const match = /^#\/components\/schemas\/(.+)$/.exec(inner);
        if (!match) throw new Error(`unexpected reference ${inner}`);
        into.add(match[1]);
      } else collectRefs(inner, into);
    }
}

/** The subset as committed: two-space JSON and a final newline. */
export function formatSubset(subset) {
  return `${JSON.stringify(subset, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { spec, version } = loadPublished();
  const text = formatSubset(extractSubset(spec, version));
  if (process.argv.includes('--check')) {
    const committed = readFileSync(SUBSET_FILE, 'utf8');
    if (committed !== text) {
      console.error(
        `${SUBSET_FILE} differs from @octokit/openapi ${version}; run: node scripts/extract-github-openapi.mjs`,
      );
      process.exit(1);
    }
    console.log(`${SUBSET_FILE} matches @octokit/openapi ${version}`);
  } else {
    writeFileSync(SUBSET_FILE, text);
    const count = Object.keys(JSON.parse(text).components.schemas).length;
    console.log(`wrote ${SUBSET_FILE}: ${GITHUB_OPERATIONS.length} operations, ${count} schemas, ${text.length} bytes`);
  }
}
