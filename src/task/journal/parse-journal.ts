import { AgencyError } from '../../core/errors.ts';
import { type EventFrame, eventFrameSchema } from '../contracts/events.ts';

/** A partial last line: where it starts (1-based line number) and how many bytes it spans. */
export type TornTail = { line: number; bytes: number };

/** The intact frames of a journal, its torn tail if any, and how many leading bytes are intact. */
export type ParsedJournal = { frames: EventFrame[]; torn?: TornTail; intactBytes: number };

/** The outcome of parsing one line: a frame, or why not (and whether the line was at least valid JSON). */
export type ParsedLine = { frame: EventFrame } | { problem: string; json: boolean };

const NEWLINE = 0x0a;

/**
 * Parses the bytes of an `events.ndjson` file. Exactly one torn final line is tolerated: bytes after the last
 * newline (a write cut short), or a last newline-terminated line that is not JSON. A complete JSON line is never
 * treated as torn: a frame that fails the schema, a bad line before the last, or a `seq` that does not strictly
 * increase is `journal_corrupt`, naming the file and the line.
 */
export function parseJournal(bytes: Uint8Array, file: string): ParsedJournal {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const complete = buffer.lastIndexOf(NEWLINE) + 1;
  const lines = buffer.toString('utf8', 0, complete).split('\n');
  lines.pop();
  const frames: EventFrame[] = [];
  for (let index = 0; index < lines.length; index++) {
    const text = lines[index] as string;
    const parsed = parseFrameLine(text);
    if ('problem' in parsed) {
      const isTail = index === lines.length - 1 && complete === buffer.byteLength;
      if (isTail && !parsed.json) {
        const tornBytes = Buffer.byteLength(text) + 1;
        return { frames, torn: { line: index + 1, bytes: tornBytes }, intactBytes: complete - tornBytes };
      }
      throw journalCorrupt(file, index + 1, parsed.problem);
    }
    checkSeq(file, index + 1, parsed.frame, frames.at(-1));
    frames.push(parsed.frame);
  }
  if (complete === buffer.byteLength) return { frames, intactBytes: complete };
  return { frames, torn: { line: lines.length + 1, bytes: buffer.byteLength - complete }, intactBytes: complete };
}

/** Parses and validates one line (without its newline) against `agent.events.v1`. */
export function parseFrameLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = text.trim() === '' ? 'empty line' : `not valid JSON (${(error as Error).message})`;
    return { problem: reason, json: false };
  }
  const result = eventFrameSchema.safeParse(value);
  if (result.success) return { frame: result.data };
  const issue = result.error.issues[0];
  const field = issue?.path.length ? `"${issue.path.join('.')}"` : 'the frame';
  return { problem: `${field}: ${issue?.message ?? 'invalid'} (not an agent.events.v1 frame)`, json: true };
}

/** Throws `journal_corrupt` unless `frame.seq` is above the previous frame's. */
export function checkSeq(file: string, line: number, frame: EventFrame, previous: EventFrame | undefined): void {
  if (previous === undefined || frame.seq > previous.seq) return;
  throw journalCorrupt(file, line, `seq ${frame.seq} does not increase (the frame before has seq ${previous.seq})`);
}

/** A `journal_corrupt` error naming the file and line, saying why only a torn tail is repaired automatically. */
export function journalCorrupt(file: string, line: number, problem: string): AgencyError {
  return new AgencyError(
    'journal_corrupt',
    `${file}:${line}: ${problem}. Only a torn last line is repaired automatically; inspect the file, and if ` +
      `everything from line ${line} on can be discarded, truncate it there and resume`,
    { details: { path: file, line } },
  );
}
