import type { UploadResult } from '../api/schemas.ts';
import { AgencyError } from '../core/errors.ts';
import { recordOf, type ServiceCore } from './service-core.ts';
import { checkUploadName, type IncomingFile, writeTaskFile } from './task-intake.ts';

/** Writes files into `task/` of a held task, within the service's limits on files and bytes. */
export async function uploadFiles(
  core: ServiceCore,
  id: string,
  files: readonly IncomingFile[],
): Promise<UploadResult> {
  const { limits } = core;
  const record = await recordOf(core, id);
  if (!record.request?.hold || record.spec)
    throw new AgencyError(
      'task_state_conflict',
      `Task ${id} takes no uploads: files go into task/ only while a task is held (create it with "hold": true)`,
      { details: { task_id: id } },
    );
  const present = (await record.files.list(record.paths.task)).filter((entry) => entry.kind === 'file').length;
  if (present + files.length > limits.files + 1)
    throw new AgencyError('payload_too_large', `A task holds at most ${limits.files} files`, {
      details: { limit: limits.files },
    });
  const written: UploadResult['files'] = [];
  for (const [index, file] of files.entries()) {
    checkUploadName(file.name, `files.${index}.name`);
    if (file.data.byteLength > limits.fileBytes)
      throw new AgencyError('payload_too_large', `${file.name}: over the ${limits.fileBytes}-byte limit per file`, {
        details: { field: `files.${index}`, limit: limits.fileBytes },
      });
    written.push({
      name: file.name,
      size: await writeTaskFile(record.paths.root, file.name, file.data, limits.fileBytes),
    });
  }
  return { task_id: id, files: written };
}
