import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AgencyError } from '../core/errors.ts';
import type { FileMount, SandboxFile } from './sandbox.ts';

/** Files written for one run, and how to remove them. */
export type StagedFiles = { mounts: FileMount[]; dispose(): Promise<void> };

/**
 * Writes `files` into a fresh private directory (mode 0700) under `tmpDir`, each with its own mode, and returns
 * the mounts that bind them into the sandbox. Call `dispose` when the run ends, whatever its outcome.
 */
export async function stageFiles(files: readonly SandboxFile[], tmpDir: string): Promise<StagedFiles> {
  if (files.length === 0) return { mounts: [], dispose: async () => {} };
  files.forEach(assertFile);
  const dir = await mkdtemp(join(tmpDir, 'agency-sandbox-files-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  try {
    const mounts: FileMount[] = [];
    for (const [i, file] of files.entries()) {
      const hostPath = join(dir, String(i));
      const mode = file.mode ?? 0o400;
      await writeFile(hostPath, file.content, { mode, flag: 'wx' });
      await chmod(hostPath, mode); // the umask may have narrowed it
      mounts.push({ hostPath, path: file.path });
    }
    return { mounts, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

function assertFile(file: SandboxFile, i: number): void {
  if (typeof file.content !== 'string' && !(file.content instanceof Uint8Array)) {
    throw new AgencyError('invalid_argument', `sandbox files[${i}].content must be a string or bytes.`);
  }
  const mode = file.mode ?? 0o400;
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o777) {
    throw new AgencyError('invalid_argument', `sandbox files[${i}].mode must be a permission mode such as 0o400.`);
  }
}
