import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { errnoCode } from '../../../core/errno.ts';
import { AgencyError } from '../../../core/errors.ts';
import { writeFileAtomic } from '../../../task/fs/atomic-write.ts';
import { sessionIdSchema, workerTaskIdSchema } from '../../api/worker-schemas.ts';

/** A session the CLI director started or carried on: where its task is. */
export type SessionRecord = z.infer<typeof recordSchema>;

const recordSchema = z
  .object({
    session_id: sessionIdSchema,
    task_id: workerTaskIdSchema,
    url: z.string(),
    name: z.string().optional(),
    updated_at: z.iso.datetime(),
  })
  .strict();
const fileSchema = z.object({ version: z.literal(1), sessions: z.array(recordSchema) }).strict();

/** How many sessions the file keeps, the latest first. */
export const KEPT_SESSIONS = 50;

/** The CLI director's file: `<AGENCY_ROOT>/directors/cli/sessions.json`. */
export function sessionsFile(agencyRoot: string): string {
  return join(agencyRoot, 'directors', 'cli', 'sessions.json');
}

/**
 * The sessions the CLI director remembers, the latest first; none when the file does not exist.
 *
 * @throws AgencyError `invalid_config` naming the file and the field, when it is not what this writes.
 */
export async function readSessions(file: string): Promise<SessionRecord[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return [];
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw corrupt(file, 'not JSON');
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw corrupt(file, `"${issue?.path.join('.') ?? ''}" ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data.sessions;
}

/** Puts `record` first in the file, replacing an older record of its session; an unreadable file is started anew. */
export async function rememberSession(file: string, record: SessionRecord): Promise<void> {
  const others = (await readSessions(file).catch(() => [])).filter(
    (session) => session.session_id !== record.session_id,
  );
  const sessions = [record, ...others].slice(0, KEPT_SESSIONS);
  await mkdir(join(file, '..'), { recursive: true });
  await writeFileAtomic(file, `${JSON.stringify({ version: 1, sessions }, null, 2)}\n`, { durable: false });
}

function corrupt(file: string, problem: string): AgencyError {
  return new AgencyError(
    'invalid_config',
    `${file}: ${problem}. It holds only the sessions \`agency task\` remembers; delete it to start afresh.`,
    { details: { file } },
  );
}
