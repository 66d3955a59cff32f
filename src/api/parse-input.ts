import type { z } from 'zod';
import { AgencyError } from '../core/errors.ts';

/**
 * Parses a value with a schema, or throws `invalid_argument` naming the first bad field (`where.field: message`),
 * which the API reports as a 400 `validation_error` with `details.field`. An unknown field is named itself
 * (`approvals.sneaky`); a problem with the value as a whole (not an object) is named `whole`.
 */
export function parseInput<T>(schema: z.ZodType<T>, value: unknown, where: string, whole = where || 'body'): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  // An unknown field is named itself, not the object that has it (the body's own fields have no path).
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const field = [where, ...path.map(String)].filter(Boolean).join('.') || whole;
  const message =
    issue.code === 'unrecognized_keys'
      ? `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`
      : issue.message;
  throw new AgencyError('invalid_argument', `${field}: ${message}`, {
    details: { field, issues: parsed.error.issues.length },
  });
}
