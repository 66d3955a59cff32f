import { posix } from 'node:path';
import { AgencyError, errorMessage } from '../../core/errors.ts';
import { readFileInScope } from '../../tools/guards/path-io.ts';
import { openInScope } from '../../tools/guards/path-open.ts';
import { resolveInScope } from '../../tools/guards/path-resolve.ts';
import { createSchemaCompiler } from '../../tools/json-schema/schema-ajv.ts';
import type { AcceptanceCheck } from '../contracts/plan.ts';

/** The outcome of one deterministic acceptance check, as Verify reports it. */
export type CheckResult = { passed: boolean; evidence: string; artifacts: string[] };

/** An acceptance check on a file under `progress/`. */
export type FileCheck = Exclude<AcceptanceCheck, { type: 'test_runner' }>;

/** The largest file a `contains` or `json_validate` check reads: 64 MiB. */
export const VERIFY_MAX_FILE_BYTES = 64 * 1024 * 1024;

/**
 * Runs a `file_exists`, `contains` or `json_validate` check on a path relative to `progress/`, reading the file the
 * way the model's own tools do: through the path guard, race-free, following a symlink only when its whole chain
 * stays inside `progress/`. A path or link that leads out of `progress/` fails the check with evidence that says so,
 * and never with the content or the existence of what it points at. FIFOs, sockets and devices fail without being
 * read. When the path goes through a link, the evidence names the file that was read.
 *
 * @param maxBytes the largest file read for `contains` and `json_validate` @default 67108864 (64 MiB)
 */
export async function runFileCheck(
  progress: string,
  check: FileCheck,
  maxBytes = VERIFY_MAX_FILE_BYTES,
): Promise<CheckResult> {
  const roots = [{ label: 'progress', path: progress }];
  const named = namedPath(check.path);
  let shown: string;
  let text = '';
  try {
    const resolved = await resolveInScope(roots, check.path, 'read');
    const real = `progress/${resolved.relative}`;
    shown = real === named ? named : `${named} (a link to ${real})`;
    if (check.type === 'file_exists') await (await openInScope(roots, check.path, 'read')).close();
    else text = (await readFileInScope(roots, check.path, { maxBytes })).toString('utf8');
  } catch (error) {
    return { passed: false, evidence: refusedEvidence(named, error, maxBytes), artifacts: [] };
  }
  if (check.type === 'file_exists') return { passed: true, evidence: `${shown} exists`, artifacts: [named] };
  if (check.type === 'contains') {
    const found = text.includes(check.text);
    const verb = found ? 'contains' : 'does not contain';
    return { passed: found, evidence: `${shown} ${verb} "${check.text}"`, artifacts: [named] };
  }
  return { ...validateJson(shown, text, check.schema), artifacts: [named] };
}

// One compiler for every run in the process: its ajv per dialect is built once, and each schema is dropped after use.
let compileSchema: ReturnType<typeof createSchemaCompiler> | undefined;

function validateJson(shown: string, text: string, schema: Record<string, unknown>) {
  try {
    const validate = (compileSchema ??= createSchemaCompiler())(schema);
    const valid = validate(JSON.parse(text));
    const errors = (validate.errors ?? [])
      .map((error) => `${error.instancePath || '(root)'} ${error.message}`)
      .join('; ');
    return { passed: valid, evidence: valid ? `${shown} matches the schema` : `${shown}: ${errors}` };
  } catch (error) {
    return { passed: false, evidence: `${shown} could not be validated: ${errorMessage(error)}` };
  }
}

// The path as the plan named it, below progress/: `artifacts/a.md` and `progress/artifacts/a.md` are the same file.
function namedPath(userPath: string): string {
  const normal = posix.normalize(userPath).replace(/^(\.\/)+/, '');
  return normal.startsWith('progress/') ? normal : `progress/${normal}`;
}

// Refusals never quote the guard's escape messages: those name the host's directories, and nothing here may depend
// on what lies outside progress/.
function refusedEvidence(named: string, error: unknown, maxBytes: number): string {
  if (!AgencyError.isInstance(error)) return `${named} could not be read: ${errorMessage(error)}`;
  switch (error.code) {
    case 'path_not_found':
      return `${named} does not exist`;
    case 'path_symlink_escape':
    case 'path_outside_scope':
      return `${named} leads outside progress/ (through "..", an absolute path or a symlink); checks read only files inside it`;
    case 'invalid_argument':
      return `${named} is larger than the ${maxBytes}-byte limit of Verify's checks`;
    default:
      return `${named} cannot be checked: ${error.message}`;
  }
}
