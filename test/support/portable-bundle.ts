// Bundles an entry of the package for a runtime without Node built-ins, and gives it a bare V8 context with only the
// Web APIs such runtimes share (timers, AbortController, TextEncoder, URL, crypto.getRandomValues, streams, …): no
// `process`, `require`, `Buffer` or `node:*`. test/e2e/portable-root.test.ts and portable-client.test.ts use it.
import { builtinModules } from 'node:module';
import { createContext } from 'node:vm';
import { build, type Metafile, type Plugin } from 'esbuild';

const repo = new URL('../..', import.meta.url).pathname;

// Fails the bundle on the first Node built-in anything reaches, naming who imported it.
const refuseNodeBuiltins: Plugin = {
  name: 'refuse-node-builtins',
  setup(bundle) {
    const builtins = new Set(builtinModules);
    bundle.onResolve({ filter: /.*/ }, ({ path, importer }) => {
      if (!path.startsWith('node:') && !builtins.has(path.split('/')[0] ?? path)) return undefined;
      return { errors: [{ text: `${path} is a Node built-in, imported by ${importer}` }] };
    });
  },
};

/** Bundles `contents` (an entry module's source, resolved from the repo) into one script that sets `globalName`. */
export async function bundleForWeb(
  contents: string,
  { globalName, plugins = [] }: { globalName: string; plugins?: Plugin[] },
): Promise<{ code: string; metafile: Metafile }> {
  const result = await build({
    stdin: { contents, resolveDir: repo, sourcefile: 'portable-entry.ts', loader: 'ts' },
    bundle: true,
    write: false,
    metafile: true,
    format: 'iife',
    globalName,
    platform: 'neutral',
    mainFields: ['module', 'main'],
    conditions: ['agency-source'],
    logLevel: 'silent',
    plugins: [refuseNodeBuiltins, ...plugins],
  });
  return { code: result.outputFiles[0]?.text ?? '', metafile: result.metafile };
}

/** A context with the Web APIs every such runtime has, taken from this one, plus `extra`; nothing Node-specific. */
export function webContext(log: string[], extra: Record<string, unknown> = {}) {
  return createContext({
    setTimeout,
    clearTimeout,
    setInterval,
    clearInterval,
    queueMicrotask,
    structuredClone,
    performance,
    AbortController,
    AbortSignal,
    Event,
    EventTarget,
    DOMException,
    TextEncoder,
    TextDecoder,
    URL,
    URLSearchParams,
    atob,
    btoa,
    crypto,
    ReadableStream,
    WritableStream,
    TransformStream,
    console: { log: (...args: unknown[]) => log.push(args.join(' ')), warn: () => {}, error: () => {} },
    ...extra,
  });
}
