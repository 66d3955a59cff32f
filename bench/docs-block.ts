import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';

const DOCS = new URL('../docs/benchmarks.md', import.meta.url);

/**
 * Replaces the generated block `<!-- <name>:begin -->` … `<!-- <name>:end -->` of docs/benchmarks.md with `markdown`,
 * formatted as Prettier would, so `npm run lint` stays clean after a run. The prose around it is written by hand and
 * left alone; a missing file or block is reported on stderr, not thrown.
 */
export async function writeDocsBlock(name: string, markdown: string): Promise<void> {
  const begin = `<!-- ${name}:begin -->`;
  const end = `<!-- ${name}:end -->`;
  let docs: string;
  try {
    docs = readFileSync(DOCS, 'utf8');
  } catch {
    console.error('docs/benchmarks.md is missing; not updated');
    return;
  }
  const from = docs.indexOf(begin);
  const to = docs.indexOf(end);
  if (from < 0 || to < from) {
    console.error(`docs/benchmarks.md has no ${begin} … ${end} section; not updated`);
    return;
  }
  const options = (await prettier.resolveConfig(fileURLToPath(DOCS))) ?? {};
  const formatted = await prettier.format(markdown, { ...options, parser: 'markdown' });
  writeFileSync(DOCS, `${docs.slice(0, from)}${begin}\n\n${formatted}\n${end}${docs.slice(to + end.length)}`);
}
