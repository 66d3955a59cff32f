/** What is wrong with a set of files against the server's upload limits, or undefined when they fit. */
export function checkUploads(
  files: ReadonlyArray<{ name: string; size: number }>,
  limits: { upload_bytes: number; upload_files: number } | undefined,
): string | undefined {
  if (!limits || files.length === 0) return undefined;
  if (files.length > limits.upload_files)
    return `Too many files: ${files.length}, the server takes at most ${limits.upload_files}.`;
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (total > limits.upload_bytes)
    return `The files add up to ${total} bytes; the server takes at most ${limits.upload_bytes}.`;
  return undefined;
}
