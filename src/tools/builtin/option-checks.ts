import { AgencyError } from '../../core/errors.ts';

/**
 * Checks a limit the harness configured. A bad one is the harness's mistake, so it throws `invalid_argument` while
 * the tools are created rather than failing every call later.
 */
export function positiveLimit(tool: string, name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new AgencyError(
      'invalid_argument',
      `${tool}: ${name} must be a positive whole number, got ${String(value)}`,
      {
        details: { tool, field: name },
      },
    );
  }
  return value;
}
