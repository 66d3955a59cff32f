// The README's main job: runs the example governed tasks end to end, offline, from their recorded cassettes.
//   npm run demo                                   both examples, replayed, approvals automatic
//   npm run demo -- --example research             one example
//   npm run demo -- --example research --model openai:gpt-4o --record     run against a real model and re-record
//   npm run demo -- --author --record              re-record both cassettes with the scripted stand-ins
// Each run happens in a fresh copy of the example under .demo/<name>/, whose progress/ holds the paper trail.
import { cp, mkdir, rm } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { codeAuthor } from '../examples/code/scripted-author.ts';
import { researchAuthor } from '../examples/research/scripted-author.ts';
import { SITE_PORT, startSite } from '../examples/research/serve-site.ts';
import { runCommand } from '../src/cli/commands/run.ts';
import { recordModel } from '../src/model/cassette/record-model.ts';
import { resolveModel } from '../src/model/resolve-model.ts';
import { checkSandbox, createBwrapSandbox } from '../src/sandbox/index.ts';
import { measurePrefix } from './prefix-meter.ts';

const repo = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    example: { type: 'string', default: 'all' },
    model: { type: 'string' },
    record: { type: 'boolean', default: false },
    author: { type: 'boolean', default: false },
    approvals: { type: 'string', default: 'auto' },
  },
});
const examples = values.example === 'all' ? ['research', 'code'] : [values.example ?? 'research'];
const out = {
  write: (text: string) => void process.stdout.write(text),
  isTTY: process.stdout.isTTY === true,
  columns: process.stdout.columns,
};
const authors: Record<string, () => LanguageModelV4> = { research: researchAuthor, code: codeAuthor };

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
  const cassette = join(repo, 'examples', name, 'cassette.jsonl');
  const root = join(repo, '.demo', name);
  await rm(root, { recursive: true, force: true });
  await mkdir(root, { recursive: true });
  await cp(join(repo, 'examples', name, 'task'), join(root, 'task'), { recursive: true });

  let model: LanguageModelV4 = values.author ? authors[name]() : resolveModel(values.model ?? `replay:${cassette}`);
  if (values.record) model = recordModel(model, cassette);
  const meter = measurePrefix(model);
  const site = name === 'research' ? await startSite() : undefined;
  out.write(
    `\n=== ${name}: ${relative(repo, root)} (model ${values.model ?? (values.author ? 'scripted author' : `replay:${relative(repo, cassette)}`)}) ===\n\n`,
  );
  try {
    const code = await runCommand(
      root,
      {
        approvals: values.approvals === 'file' ? 'file' : 'auto',
        modelObject: meter.model,
        model: values.model ?? 'replay',
        // The demo is the operator: it lets the research task reach the local site it serves, and no other host
        // without approval. The task's own agency.json may only narrow this.
        ...(site ? { allowHost: [`127.0.0.1:${SITE_PORT}`] } : {}),
      },
      'start',
      out,
    );
    if (code !== 0) failures++;
    out.write(`Prompt prefix: ${meter.summary()}\n`);
    if (values.record) out.write(`Recorded ${meter.calls()} model call(s) to ${relative(repo, cassette)}\n`);
  } finally {
    site?.close();
  }
}
process.exitCode = failures === 0 ? 0 : 1;
