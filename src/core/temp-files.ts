import { randomBytes } from 'node:crypto';

/** The suffix of the temp files agency's atomic writes create beside their targets. */
export const TEMP_FILE_SUFFIX = '.agency-tmp';

/**
 * A fresh name for the temp file of an atomic write of `target` (a file name, not a path): hidden, unique, and short
 * enough for any file system (`target` is cut to 40 characters). A crash between creating and renaming it leaves it
 * behind; listings skip such files and a resumed run removes them.
 */
export function tempFileName(target: string): string {
  return `.${target.slice(0, 40)}.${randomBytes(6).toString('hex')}${TEMP_FILE_SUFFIX}`;
}

/** True for names made by {@link tempFileName}. */
export function isTempFileName(name: string): boolean {
  return name.startsWith('.') && name.endsWith(TEMP_FILE_SUFFIX);
}
