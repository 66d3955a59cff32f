// Looks for a canary secret in files: as written, URL-encoded, in base64 at each of its three byte offsets (standard
// and URL-safe), and as any 10 consecutive characters of it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** The spellings of `value` to look for, each with a name for the report. */
export function canarySpellings(value: string): Array<[name: string, text: string]> {
  const spellings: Array<[string, string]> = [
    ['plain', value],
    ['URL-encoded', encodeURIComponent(value)],
  ];
  const bytes = Buffer.from(value, 'utf8');
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Only the characters that come from the value's bytes alone: the ones at either end mix in its neighbours.
    const core = encoded.slice(Math.ceil((offset * 8) / 6), Math.floor(((offset + bytes.length) * 8) / 6));
    spellings.push([`base64@${offset}`, core], [`base64url@${offset}`, core.replaceAll('+', '-').replaceAll('/', '_')]);
  }
  for (let start = 0; start + 10 <= value.length; start++)
    spellings.push([`fragment@${start}`, value.slice(start, start + 10)]);
  return spellings;
}

/** Every file under `dir`, as absolute paths, leaving out directories `skip` names (relative to `dir`). */
export function filesUnder(dir: string, skip: readonly string[] = []): string[] {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory() && !skip.includes(relative(dir, path))) walk(path);
      else if (entry.isFile()) files.push(path);
    }
  };
  walk(dir);
  return files.sort();
}

/** `<file relative to base>: <spelling>` for each spelling of `value` found in each file. */
export function findCanary(files: readonly string[], value: string, base: string): string[] {
  const spellings = canarySpellings(value);
  const hits: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const [name, spelled] of spellings) if (text.includes(spelled)) hits.push(`${relative(base, file)}: ${name}`);
  }
  return hits;
}
