/** One name pattern or several: exact names, or globs where `*` is any run of characters and `?` one character. */
export type NamePatterns = string | readonly string[];

/** Compiles name patterns into a predicate. Matching is exact and case-sensitive. */
export function nameMatcher(patterns: NamePatterns): (name: string) => boolean {
  const list = typeof patterns === 'string' ? [patterns] : patterns;
  const exact = new Set(list.filter((pattern) => !/[*?]/.test(pattern)));
  const globs = list.filter((pattern) => /[*?]/.test(pattern)).map(globToRegExp);
  return (name) => exact.has(name) || globs.some((glob) => glob.test(name));
}

function globToRegExp(pattern: string): RegExp {
  const source = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${source}$`, 's');
}
