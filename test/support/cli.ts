// Runs the real `agency` binary in a child process, as a user would.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The CLI's entry point in this checkout. */
export const agency = join(import.meta.dirname, '../../bin/agency.js');
const exec = promisify(execFile);

/** Runs `agency …args` to the end and returns its exit code and output. */
export async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [agency, ...args], {
      env: { ...process.env, ...env },
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** Polls `agency approvals --json` until a request is pending, and returns its id. */
export async function waitForRequest(root: string): Promise<string> {
  for (;;) {
    const { stdout } = await cli(['approvals', root, '--json']);
    const pending = JSON.parse(stdout) as Array<{ id: string }>;
    if (pending[0]) return pending[0].id;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
