// Re-records the cassettes of the shipped eval suite (evals/examples/<case>/cassette.jsonl) with the scripted
// stand-ins of scripts/eval-suite-authors.ts, through `agency eval` itself, then checks the suite replays:
//   node scripts/record-eval-suite.ts
// Against a real model instead: agency eval evals/examples --model anthropic:claude-sonnet-4-5 --record
import { join } from 'node:path';
import { evalCommand } from '../src/cli/commands/eval.ts';
import { evalSuiteAuthor } from './eval-suite-authors.ts';

const suite = join(import.meta.dirname, '..', 'evals', 'examples');
const out = { write: (text: string) => void process.stdout.write(text), isTTY: false };
const recorded = await evalCommand(suite, { record: true, modelFor: (item) => evalSuiteAuthor(item.name) }, out);
process.exitCode = recorded === 0 ? await evalCommand(suite, {}, out) : recorded;
