import { errnoCode } from '../../core/errno.ts';
import { AgencyError } from '../../core/errors.ts';
import {
  CASSETTE_FORMAT,
  type CassetteCall,
  type CassetteHeader,
  cassetteCallSchema,
  cassetteHeaderSchema,
} from './cassette-format.ts';

/** A parsed cassette: its header and its calls in index order, each with the line it came from. */
export type ParsedCassette = { header: CassetteHeader; calls: Array<{ call: CassetteCall; line: number }> };

/**
 * Reads and validates a cassette file.
 * @throws AgencyError `cassette_not_found`, or `cassette_corrupt` naming the file, the line and what is wrong.
 */
export function readCassette(file: string, readFile: (path: string, encoding: 'utf8') => string): ParsedCassette {
  let text: string;
  try {
    text = readFile(file, 'utf8');
  } catch (cause) {
    throw new AgencyError(
      'cassette_not_found',
      `Cassette ${file} cannot be read (${errnoCode(cause) ?? 'error'}). ` +
        'Record one with recordModel(model, path), or check the path.',
      { cause, details: { file } },
    );
  }
  const lines = text.split('\n');
  // A file not ending in a newline was cut off while its last line was written (the recording process stopped).
  const torn = lines.at(-1) !== '';
  if (!torn) lines.pop();
  if (lines.length === 0) corrupt(file, 1, 'the file is empty; line 1 must be the cassette header');

  const header = cassetteHeaderSchema.safeParse(parseLine(file, 1, lines[0] as string));
  if (!header.success) {
    corrupt(file, 1, `not a ${CASSETTE_FORMAT} header: ${issuesOf(header.error)}`);
  }
  const calls: ParsedCassette['calls'] = [];
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i] as string;
    if (raw.trim() === '') continue;
    const parsed = cassetteCallSchema.safeParse(parseLine(file, i + 1, raw, torn && i === lines.length - 1));
    if (!parsed.success) corrupt(file, i + 1, issuesOf(parsed.error));
    calls.push({ call: parsed.data, line: i + 1 });
  }
  calls.sort((a, b) => a.call.index - b.call.index);
  calls.forEach((entry, position) => {
    if (entry.call.index !== position) {
      corrupt(file, entry.line, `call index ${entry.call.index} is out of sequence (expected ${position})`);
    }
  });
  return { header: header.data, calls };
}

function parseLine(file: string, line: number, raw: string, last = false): unknown {
  try {
    return JSON.parse(raw);
  } catch (cause) {
    const cut = last
      ? `; the last line is cut short (the recording stopped while writing it): record the cassette again, or delete line ${line} to keep the calls before it`
      : '';
    return corrupt(file, line, `invalid JSON (${(cause as Error).message})${cut}`);
  }
}

function issuesOf(error: { issues: Array<{ path: PropertyKey[]; message: string }> }): string {
  return error.issues.map((issue) => `${issue.path.map(String).join('.') || '(line)'}: ${issue.message}`).join('; ');
}

function corrupt(file: string, line: number, reason: string): never {
  throw new AgencyError('cassette_corrupt', `Cassette ${file} line ${line} is corrupt: ${reason}`, {
    details: { file, line },
  });
}
