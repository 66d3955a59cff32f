import { z } from 'zod';
import { AgencyError } from '../../../../core/errors.ts';
import { createFileGlobTool, type FileGlobOutput } from '../../../../tools/builtin/file-glob.ts';
import { createFsReadTool, type FsReadOutput } from '../../../../tools/builtin/fs-read.ts';
import { defineTool, type Tool } from '../../../../tools/define-tool.ts';
import type { DelegationContext } from './delegation-context.ts';
import { checkWorkdir } from './workdir-scope.ts';

/** The largest file `inspect_workdir` reads. */
export const MAX_INSPECTED_BYTES = 1024 * 1024;
const MAX_CHARS = 50_000;
const MAX_LISTED = 300;

const input = z.object({
  workdir: z.string().min(1).max(4_096).describe('The workdir of an earlier delegate_task (an absolute path)'),
  path: z
    .string()
    .min(1)
    .max(4_096)
    .optional()
    .describe('A file to read, relative to the workdir, e.g. "src/app.ts"; leave out to list files'),
  pattern: z
    .string()
    .min(1)
    .max(1_024)
    .optional()
    .describe('Which files to list, a glob relative to the workdir, e.g. "src/**/*.ts" (default: everything)'),
  start_line: z.int().min(1).optional().describe('First line to read (1-based)'),
  end_line: z.int().min(1).optional().describe('Last line to read, inclusive'),
});

/**
 * `inspect_workdir` (read): lists or reads the files of a workdir this manager delegated work in, and nothing else.
 * The workdir must be one a delegation recorded and lie within the manager's readable paths; inside it, the path
 * guard of `fs_read` and `file_glob` refuses `..`, absolute paths and links that lead out, and files over 1 MiB.
 */
export function createInspectWorkdirTool(
  context: Pick<DelegationContext, 'ledger' | 'readablePaths'>,
): Tool<z.output<typeof input>, FsReadOutput | FileGlobOutput> {
  return defineTool({
    name: 'inspect_workdir',
    description:
      'Look at what a worker did: list the files of a workdir you delegated work in (with a glob pattern), or read ' +
      'one of them (path, optionally a line range). Read-only; only workdirs of your own delegations.',
    input,
    effects: 'read',
    timeoutMs: 60_000,
    execute: async ({ workdir, path, pattern, start_line, end_line }, toolContext) => {
      const real = await checkWorkdir(workdir, context.readablePaths);
      const delegated = (await context.ledger.all()).some((entry) => entry.workdir === real && entry.state === 'sent');
      if (!delegated)
        throw new AgencyError(
          'path_outside_scope',
          `workdir "${workdir}" is not one this manager delegated work in; inspect only the workdir of a delegate_task`,
          { details: { workdir } },
        );
      const roots = [{ label: 'workdir', path: real }];
      if (path !== undefined) {
        const read = createFsReadTool({ roots, maxFileBytes: MAX_INSPECTED_BYTES, maxChars: MAX_CHARS });
        return read.execute({ path, start_line, end_line }, toolContext);
      }
      const list = createFileGlobTool({ roots, maxResults: MAX_LISTED });
      return list.execute({ pattern: pattern ?? '**' }, toolContext);
    },
  });
}
