import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

/** The first executable file named `name` in the absolute directories of `searchPath` (a `PATH`), or undefined. */
export function findOnPath(name: string, searchPath: string): string | undefined {
  for (const dir of searchPath.split(delimiter)) {
    if (!isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    if (isExecutableFile(candidate)) return candidate;
  }
  return undefined;
}

/** Whether `path` is a regular file this process may execute. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
