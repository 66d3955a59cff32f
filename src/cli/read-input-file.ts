import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { AgencyError } from '../core/errors.ts';
import { errnoCode } from '../core/errno.ts';

const { O_RDONLY, O_NONBLOCK, O_NOCTTY } = constants;

/**
 * The text of a file named on the command line (`-`: standard input), refused rather than read when it is not a
 * regular file (a FIFO is opened without waiting for a writer, so it cannot hang the command), when it is larger than
 * `maxBytes`, or when it is not UTF-8. `flag` names the option in errors.
 * @throws AgencyError `invalid_argument` naming the flag and the file.
 * @example
 * const text = await readInputFile(options.file, '--file', MAX_PROMPT_TEXT_BYTES);
 */
export async function readInputFile(path: string, flag: string, maxBytes: number): Promise<string> {
  const bytes = path === '-' ? await readStdin(flag, maxBytes) : await readRegularFile(path, flag, maxBytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new AgencyError('invalid_argument', `${flag}: ${shown(path)} is not UTF-8 text`, {
      details: { field: flag },
    });
  }
}

async function readRegularFile(path: string, flag: string, maxBytes: number): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  } catch (error) {
    const reason =
      errnoCode(error) === 'ENOENT' ? 'there is no such file' : `it cannot be opened (${errnoCode(error)})`;
    throw new AgencyError('invalid_argument', `${flag}: ${path}: ${reason}`, { details: { field: flag } });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new AgencyError(
        'invalid_argument',
        `${flag}: ${path} is not a regular file (a folder, a FIFO or a device); give a file, or - to read standard input`,
        { details: { field: flag } },
      );
    }
    if (stat.size > maxBytes) throw tooLarge(flag, path, stat.size, maxBytes);
    const buffer = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(buffer, 0, stat.size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

// Reads until the end, or until one byte past the limit: a stream larger than that is refused, not held.
async function readStdin(flag: string, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.byteLength;
    if (size > maxBytes) {
      process.stdin.destroy();
      throw tooLarge(flag, '-', size, maxBytes, true);
    }
  }
  return Buffer.concat(chunks);
}

function tooLarge(flag: string, path: string, size: number, maxBytes: number, atLeast = false): AgencyError {
  return new AgencyError(
    'invalid_argument',
    `${flag}: ${shown(path)} is ${atLeast ? 'over ' : ''}${size} bytes, over the ${maxBytes}-byte limit of a prompt text`,
    { details: { field: flag } },
  );
}

function shown(path: string): string {
  return path === '-' ? 'standard input' : path;
}
