import { AgencyError } from '../../src/core/errors.ts';

/** The AgencyError `promise` rejects with; throws when it resolves, or rejects with anything else. */
export async function rejection(promise: Promise<unknown>): Promise<AgencyError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!AgencyError.isInstance(error)) throw new Error(`expected an AgencyError, got ${String(error)}`);
  return error;
}
