/**
 * The errno code of a failed system call (`ENOENT`, `EIO`…), or `undefined` for anything else: an error without a
 * code, or one whose code is not an errno (Node's `ERR_…`, an AgencyError's code).
 */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}

/**
 * Runs `fsync` on an open directory, so that the names created, replaced or removed in it survive a power loss. The
 * one place that decides what such an fsync may fail with: a file system that cannot fsync a directory (EINVAL,
 * EISDIR) has nothing more to offer, and that is not an error.
 */
export async function syncOpenDir(fsync: () => Promise<void>): Promise<void> {
  try {
    await fsync();
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'EINVAL' && code !== 'EISDIR') throw error;
  }
}
