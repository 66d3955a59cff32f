import { canonicalJson } from '../../core/canonical-json.ts';
import { AgencyError } from '../../core/errors.ts';
import { defaultRedactor, type Redactor } from '../../core/redact.ts';
import { type CassetteCall, firstDifference, preview, requestDigest } from './cassette-format.ts';
import type { ParsedCassette } from './read-cassette.ts';

/** What a cassette was recorded from: a language model (`recordModel`) or an embedding model. */
export type CassetteKind = 'model' | 'embedding';

/** How a replay matches live requests to recorded calls. */
export type CallMatchOptions = { lenient?: boolean; redactor?: Redactor };

/** Serves the recorded calls of one cassette to live requests, and counts what it has served. */
export type CallMatcher = {
  /** The recorded call for a normalized live request; `prompts` are the prompt templates it names. */
  next(request: Record<string, unknown>, prompts?: string[]): { call: CassetteCall; line: number };
  readonly served: number;
};

/**
 * The matching both replays share. In strict mode a request must match a recorded one: normally the next in order;
 * a run resumed part-way continues from the recorded call it matches. A request that matches nothing fails with
 * `cassette_mismatch`, naming the call, its line and the first differing field. Lenient mode serves calls by order.
 *
 * @throws AgencyError `cassette_corrupt` when the cassette was recorded from the other kind of model.
 */
export function createCallMatcher(
  file: string,
  calls: ParsedCassette['calls'],
  options: CallMatchOptions,
  kind: CassetteKind,
): CallMatcher {
  checkKind(file, calls, kind);
  const redactor = options.redactor ?? defaultRedactor;
  const used = new Set<number>();
  let served = 0;
  return {
    get served() {
      return served;
    },
    next(normalized, prompts) {
      const index = served;
      let entry = calls[index];
      if (!options.lenient) {
        const request = redactor.redact(normalized);
        const digest = requestDigest(request);
        if (entry?.call.digest !== digest) {
          // A run resumed after a crash starts part-way through the recording: find the call it is making.
          const found = calls.findIndex((candidate, at) => candidate.call.digest === digest && !used.has(at));
          const anywhere = found >= 0 ? found : calls.findIndex((candidate) => candidate.call.digest === digest);
          if (anywhere < 0) {
            // In order, the next recorded call is the one to compare with; in a fresh process (perhaps a resumed
            // run) it is the recorded call most like this request.
            const nearest = index > 0 ? entry : closestCall(calls, request);
            if (nearest) {
              checkPrompts(file, nearest.call, nearest.line, prompts);
              checkMatch(file, nearest.call, nearest.line, request, index > 0 ? undefined : index);
            }
            throw exhausted(file, index, calls.length, kind);
          }
          served = anywhere;
          entry = calls[anywhere];
        }
      }
      if (!entry) throw exhausted(file, index, calls.length, kind);
      used.add(served);
      served++;
      return entry;
    },
  };
}

// An embedding cassette replayed as a chat model (or the other way round) fails on open, not on its first call.
function checkKind(file: string, calls: ParsedCassette['calls'], kind: CassetteKind): void {
  const wrong = calls.find(({ call }) => (call.mode === 'embed') !== (kind === 'embedding'));
  if (!wrong) return;
  const [was, use] =
    kind === 'embedding' ? ['a language model', 'replayModel'] : ['an embedding model', 'replayEmbeddingModel'];
  throw new AgencyError(
    'cassette_corrupt',
    `Cassette ${file} line ${wrong.line} is a "${wrong.call.mode}" call, recorded from ${was}: replay it with ${use}.`,
    { details: { file, line: wrong.line } },
  );
}

function exhausted(file: string, index: number, recorded: number, kind: CassetteKind): AgencyError {
  const calls = kind === 'embedding' ? 'embedding calls' : 'model calls';
  return new AgencyError(
    'cassette_exhausted',
    `Cassette ${file} recorded ${recorded} call(s), but call #${index} was made. ` +
      `The run made more ${calls} than the recording; re-record the cassette.`,
    { details: { file, index, recorded } },
  );
}

/**
 * A call that does not match because a prompt template changed version: says which, and the two ways out (pin the
 * recorded version, or record again). Calls recorded without prompt names fall through to the field comparison.
 */
function checkPrompts(file: string, call: CassetteCall, line: number, live: string[] | undefined): void {
  if (!call.prompts || !live) return;
  const versionOf = (refs: string[]) => new Map(refs.map((ref) => [ref.slice(0, ref.lastIndexOf('@')), ref]));
  const recorded = versionOf(call.prompts);
  const changed = [...versionOf(live)].filter(([id, ref]) => recorded.has(id) && recorded.get(id) !== ref);
  if (changed.length === 0) return;
  const was = changed.map(([id]) => recorded.get(id) as string);
  const now = changed.map(([, ref]) => ref);
  const pins = was.map((ref) => `--prompt ${ref}`).join(' ');
  throw new AgencyError(
    'cassette_mismatch',
    `Cassette ${file} line ${line}: call #${call.index} was recorded with prompt ${was.join(', ')}, this run uses ` +
      `${now.join(', ')}. Pin the recorded version (agency run … ${pins}, or the runner's promptVersions option), ` +
      'or re-record the cassette with this version (agency run … --record <cassette>).',
    { details: { file, line, index: call.index, field: 'prompts', recorded: was, used: now } },
  );
}

function checkMatch(
  file: string,
  call: CassetteCall,
  line: number,
  actual: Record<string, unknown>,
  searchedFrom?: number,
): void {
  if (requestDigest(actual) === call.digest) return;
  const diff = firstDifference(call.request, actual);
  const where = diff ? `at "${diff.path}"${describeDifference(diff.recorded, diff.actual)}` : '(digest only)';
  const what =
    searchedFrom === undefined
      ? `call #${call.index} differs from the recording ${where}`
      : `no recorded call matches call #${searchedFrom}; the closest, call #${call.index}, differs ${where}`;
  throw new AgencyError(
    'cassette_mismatch',
    `Cassette ${file} line ${line}: ${what}. Re-record the cassette, or replay leniently to match calls by order only.`,
    { details: { file, line, index: call.index, field: diff?.path } },
  );
}

// Two long strings usually differ far from their start, so both are shown from a little before the first change.
function describeDifference(recorded: unknown, actual: unknown): string {
  if (typeof recorded !== 'string' || typeof actual !== 'string') {
    return `: recorded ${preview(recorded)}, got ${preview(actual)}`;
  }
  const at = commonPrefixLength(recorded, actual);
  if (at < 40) return `: recorded ${preview(recorded)}, got ${preview(actual)}`;
  const from = at - 30;
  return ` (character ${at}): recorded …${preview(recorded.slice(from))}, got …${preview(actual.slice(from))}`;
}

// The recorded call whose canonical request shares the longest prefix with this one.
function closestCall<T extends { call: CassetteCall }>(calls: readonly T[], request: unknown): T | undefined {
  const wanted = canonicalJson(request);
  let best: T | undefined;
  let bestLength = -1;
  for (const candidate of calls) {
    const length = commonPrefixLength(wanted, canonicalJson(candidate.call.request));
    if (length > bestLength) [best, bestLength] = [candidate, length];
  }
  return best;
}

function commonPrefixLength(a: string, b: string): number {
  let length = 0;
  while (length < a.length && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
}
