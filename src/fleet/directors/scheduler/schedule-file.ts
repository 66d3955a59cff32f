// Changes to a scheduler's schedule, written back to its `config.yaml` at once and whole (temp file, fsync, rename).
// The YAML document is edited in place (yaml's Document API), so the file's other fields and their comments stay;
// comments inside the `schedule:` list are replaced with it.
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import { AgencyError } from '../../../core/errors.ts';
import { parseYamlConfig } from '../../../config/yaml-file.ts';
import { writeFileAtomic } from '../../../task/fs/atomic-write.ts';
import { type ScheduleEntry, type SchedulerConfig, schedulerConfigSchema } from './schedule-config.ts';

/** How an entry is written in YAML: as the config takes it (its timeout as a duration). */
export function entryForYaml(entry: ScheduleEntry): Record<string, unknown> {
  const { timeout, ...rest } = entry;
  return {
    ...rest,
    ...(timeout === undefined ? {} : { timeout: timeout % 1000 === 0 ? `${timeout / 1000}s` : `${timeout}ms` }),
  };
}

/**
 * Edits the config file's schedule with `change` (given the schedule now), checks the whole file as a start would,
 * writes it, and returns the new config. Calls are applied one at a time.
 *
 * @throws AgencyError `invalid_config` naming the file when the file (edited by hand since) no longer parses.
 */
export function createScheduleFile(file: string) {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    change(edit: (schedule: ScheduleEntry[]) => ScheduleEntry[]): Promise<SchedulerConfig> {
      const next = queue.then(async () => {
        const text = await readFile(file, 'utf8');
        const current = parseYamlConfig(text, file, schedulerConfigSchema);
        const doc = parseDocument(text);
        doc.set('schedule', doc.createNode(edit(current.schedule).map(entryForYaml)));
        const written = doc.toString();
        const config = parseYamlConfig(written, file, schedulerConfigSchema);
        await writeFileAtomic(file, written, { mode: 0o600 });
        return config;
      });
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

/** The error of a schedule entry whose name is taken. */
export function nameTaken(name: string): AgencyError {
  return new AgencyError(
    'already_exists',
    `The schedule has an entry "${name}" already; pick another name, or PUT /schedule to replace the schedule`,
    { details: { field: 'name' } },
  );
}
