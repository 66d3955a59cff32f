/**
 * Runs `run` after every earlier run of the same `key` has settled, so two at once on one key never interleave.
 * `locks` holds the chain of each busy key and is emptied as keys go idle.
 */
export async function serializeByKey<T>(
  locks: Map<string, Promise<unknown>>,
  key: string,
  run: () => Promise<T>,
): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const current = previous.then(run, run);
  const settled = current.catch(() => undefined);
  locks.set(key, settled);
  try {
    return await current;
  } finally {
    if (locks.get(key) === settled) locks.delete(key);
  }
}
