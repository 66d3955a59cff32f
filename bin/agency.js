#!/usr/bin/env node
// The `agency` command. In a checkout it runs the TypeScript sources directly (Node >= 24 strips types); installed
// as a package it runs the compiled dist/.
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `agency needs Node.js 24 or newer; this is ${process.version}. In a checkout, \`npm run agency -- …\` uses the ` +
      'Node 24 that `npm ci` installed; elsewhere, install Node 24.\n',
  );
  process.exit(2);
}
// Node keeps the compiled code, and the type-stripped sources, of the modules loaded below in its on-disk compile
// cache (NODE_COMPILE_CACHE, or node-compile-cache in the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so
// a start after the first skips stripping and parsing. An entry is keyed by the file's content, so an edit is never
// served stale, and a cache that cannot be used is skipped.
enableCompileCache();
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'src', 'cli', 'main.ts');
const inNodeModules = root.split(/[\\/]/).includes('node_modules');
const entry = !inNodeModules && existsSync(source) ? source : join(root, 'dist', 'cli', 'main.js');
const { main } = await import(entry);
process.exitCode = await main(process.argv.slice(2));
