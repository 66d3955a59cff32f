import { join } from 'node:path';
import { z } from 'zod';
import type { AgencyRoot } from './agency-root.ts';
import { checkDatabaseSecret, databaseKeySchema } from './database-key.ts';
import { durationSchema } from './duration.ts';
import { labelsSchema } from './labels.ts';
import { bindSchema, instanceNameSchema, logLevelSchema, portSchema } from './worker-config.ts';
import { readYamlConfig } from './yaml-file.ts';

/** The kinds of director a config may declare. */
export const DIRECTOR_TYPES = ['cli', 'scheduler', 'github', 'manager', 'web'] as const;

/** One of {@link DIRECTOR_TYPES}. */
export type DirectorType = (typeof DIRECTOR_TYPES)[number];

/** How a director finds workers: a port-range scan on this host, or a static list of worker URLs. */
export const discoverySchema = z
  .object({
    /** @default 'port_scan' */
    method: z.enum(['port_scan', 'static'], { error: 'must be port_scan or static' }).default('port_scan'),
    /** The ports scanned, both included. @default [9000, 9199] */
    port_range: z
      .tuple([portSchema, portSchema], { error: 'must be two ports, first to last, e.g. [9000, 9199]' })
      .refine(([first, last]) => first <= last, 'the first port must not be above the last')
      .default([9000, 9199]),
    /** How often `/status` is polled. @default '5s' */
    refresh_interval: durationSchema({ min: 100, max: 3_600_000 }).default(5_000),
    /** Worker URLs polled besides (or, with `method: static`, instead of) the scan. */
    static: z
      .array(z.url({ protocol: /^https?$/, error: 'must be a worker URL, e.g. http://10.0.0.5:9000' }))
      .default([]),
  })
  .strict();

const baseShape = {
  type: z.enum(DIRECTOR_TYPES, { error: `must be one of ${DIRECTOR_TYPES.join(', ')}` }),
  name: instanceNameSchema,
  /** Server-based directors listen here; the CLI director has no port. */
  port: portSchema.optional(),
  /** The address to listen on; anything but loopback requires a bearer token. @default '127.0.0.1' */
  bind: bindSchema.default('127.0.0.1'),
  /** @default 'info' */
  log_level: logLevelSchema.default('info'),
  discovery: discoverySchema.default({
    method: 'port_scan',
    port_range: [9000, 9199],
    refresh_interval: 5_000,
    static: [],
  }),
  /** The fleet's PostgreSQL: tasks go through its queue; `AGENCY_DATABASE_URL` wins over it. */
  database: databaseKeySchema.optional(),
  /** Labels every task of this director requires of the worker that takes it (queue mode). */
  labels: labelsSchema.default([]),
};
const notAMap = {
  error: 'must be a map of fields, e.g. "type: scheduler" and "name: scheduler-main" on their own lines',
};

/**
 * The fields every director's `config.yaml` has. Each kind of director adds its own (a GitHub director its `repo`,
 * a scheduler its `schedule`) and checks them itself, so fields beyond these are let through here.
 */
export const directorConfigBaseSchema = z.looseObject(baseShape, notAMap);

/**
 * The schema of a kind of director's whole `config.yaml`: the base fields and `shape`, strict (an unknown field is
 * an error naming it).
 *
 * @example
 * const schedulerConfigSchema = directorConfigSchema({ schedule: z.array(entrySchema).default([]) });
 */
export function directorConfigSchema<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object({ ...baseShape, ...shape }, notAMap).strict();
}

/** The base fields of a director's config, checked. */
export type DirectorConfigBase = z.output<typeof directorConfigBaseSchema>;

/** The config file of the director `name` under the data root: `directors/<name>/config.yaml`. */
export function directorConfigPath(root: AgencyRoot, name: string): string {
  return join(root.directors, instanceNameSchema.parse(name), 'config.yaml');
}

/**
 * Reads and checks the base fields of a director's `config.yaml`.
 *
 * @throws AgencyError `invalid_config` naming the file, each bad field's line, and the fix.
 */
export async function loadDirectorConfigBase(file: string): Promise<DirectorConfigBase> {
  const config = await readYamlConfig(
    file,
    directorConfigBaseSchema,
    'Create it with at least a type and a name, e.g.\n  type: scheduler\n  name: scheduler-main\n(docs/fleet.md)',
  );
  await checkDatabaseSecret(file, config.database);
  return config;
}
