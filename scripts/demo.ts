// The README's main job: runs the example governed tasks end to end, offline, from their recorded cassettes.
//   npm run demo                                   both examples, replayed, approvals automatic
//   npm run demo -- --example research             one example
//   npm run demo -- --example research --model openai:gpt-4o --record     run against a real model and re-record
//   npm run demo -- --author --record              re-record both cassettes with the scripted stand-ins
//   npm run demo -- --out /tmp/demo                put the task copies somewhere else than .demo/
// Each run happens in a fresh copy of the example under .demo/<name>/, whose progress/ holds the paper trail. A demo
// started while another is running takes .demo/<name>-2/ (and so on), and the research site is served on a free
// port, so any number of demos can run at once.
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { codeAuthor } from '../examples/code/scripted-author.ts';
import { rehostModel } from '../examples/research/rehost-model.ts';
import { researchAuthor } from '../examples/research/scripted-author.ts';
import { RECORDED_SITE, type Site, startSite } from '../examples/research/serve-site.ts';
import { runCommand } from '../src/cli/commands/run.ts';
import { AgencyError } from '../src/core/errors.ts';
import { recordModel } from '../src/model/cassette/record-model.ts';
import { resolveModelOrReplay } from '../src/model/cassette/resolve-or-replay.ts';
import { checkSandbox, createBwrapSandbox } from '../src/sandbox/index.ts';
import { acquireRunLock } from '../src/task/lock.ts';
import { measurePrefix } from './prefix-meter.ts';

const repo = join(import.meta.dirname, '..');
const out = {
  write: (text: string) => void process.stdout.write(text),
  isTTY: process.stdout.isTTY === true,
  columns: process.stdout.columns,
};
const authors: Record<string, () => LanguageModelV4> = { research: researchAuthor, code: codeAuthor };

// The demo's folders are claimed with the runner's own lock file, beside each folder: the first demo gets
// .demo/research, one started while it runs gets .demo/research-2. A lock left by a dead demo is taken over.
async function claimFolder(base: string): Promise<{ root: string; release(): Promise<void> }> {
  for (let n = 1; n <= 20; n++) {
    const root = n === 1 ? base : `${base}-${n}`;
    try {
      const lock = await acquireRunLock(`${root}.lock`);
      return { root, release: lock.release };
    } catch (error) {
      if (!AgencyError.isInstance(error) || error.code !== 'task_locked') throw error;
    }
  }
  throw new Error(`${base} and the 19 folders after it are in use by other demos`);
}

// The research task names the site by its recorded address; the copy is pointed at the address actually served.
async function rehostTask(taskDir: string, actual: string): Promise<void> {
  for (const entry of await readdir(taskDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const text = await readFile(file, 'utf8');
    if (text.includes(RECORDED_SITE)) await writeFile(file, text.replaceAll(RECORDED_SITE, actual));
  }
}

async function runExample(
  name: string,
  outDir: string,
  values: { model?: string; record: boolean; author: boolean; approvals: string },
): Promise<number> {
  const cassette = join(repo, 'examples', name, 'cassette.jsonl');
  const claim = await claimFolder(join(outDir, name));
  const { root } = claim;
  let site: Site | undefined;
  try {
    await rm(root, { recursive: true, force: true });
    await mkdir(root, { recursive: true });
    await cp(join(repo, 'examples', name, 'task'), join(root, 'task'), { recursive: true });

    let model: LanguageModelV4 = values.author
      ? (authors[name] as () => LanguageModelV4)()
      : resolveModelOrReplay(values.model ?? `replay:${cassette}`);
    if (values.record) model = recordModel(model, cassette);
    if (name === 'research') {
      site = await startSite();
      await rehostTask(join(root, 'task'), site.address);
      model = rehostModel(model, { recorded: RECORDED_SITE, actual: site.address });
    }
    const meter = measurePrefix(model);
    const modelName = values.model ?? (values.author ? 'scripted author' : `replay:${relative(repo, cassette)}`);
    const served = site ? `, site on ${site.address}` : '';
    out.write(`\n=== ${name}: ${relative(process.cwd(), root) || '.'} (model ${modelName}${served}) ===\n\n`);
    const code = await runCommand(
      root,
      {
        approvals: values.approvals === 'file' ? 'file' : 'auto',
        modelObject: meter.model,
        model: values.model ?? 'replay',
        // The demo is the operator: it lets the research task reach the local site it serves, and no other host
        // without approval. The task's own agency.json may only narrow this.
        ...(site ? { allowHost: [site.address] } : {}),
      },
      'start',
      out,
    );
    out.write(`Prompt prefix: ${meter.summary()}\n`);
    if (values.record) out.write(`Recorded ${meter.calls()} model call(s) to ${relative(repo, cassette)}\n`);
    return code;
  } finally {
    site?.server.close();
    await claim.release();
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      example: { type: 'string', default: 'all' },
      model: { type: 'string' },
      record: { type: 'boolean', default: false },
      author: { type: 'boolean', default: false },
      approvals: { type: 'string', default: 'auto' },
      out: { type: 'string', default: join(repo, '.demo') },
    },
  });
  const examples = values.example === 'all' ? ['research', 'code'] : [values.example ?? 'research'];
  const outDir = resolve(values.out);
  await mkdir(outDir, { recursive: true });
  let failures = 0;
  for (const name of examples) {
    if (!authors[name]) throw new Error(`Unknown example "${name}"; choose research, code or all`);
    if (name === 'code') {
      const sandbox = await checkSandbox(createBwrapSandbox());
      if (!sandbox.ok) {
        out.write(
          `\nSkipping the code example: its tests run in the bubblewrap sandbox, which is unavailable here.\n${sandbox.error.message}\n`,
        );
        continue;
      }
    }
    if ((await runExample(name, outDir, values)) !== 0) failures++;
  }
  return failures === 0 ? 0 : 1;
}

// A failure to set up (a bad flag, an unknown example, a cassette that cannot be read) is one line, not a stack.
process.exitCode = await main().catch((error: unknown) => {
  process.stderr.write(`demo: ${error instanceof Error ? error.message : String(error)}\n`);
  return 1;
});
