// The scripted stand-in that recorded examples/code/cassette.jsonl through the real governed loop: plausible answers
// for each phase of the code task. Re-record against a real model with:
//   npm run demo -- --example code --model anthropic:claude-sonnet-4-5 --record
import { ScriptedModel } from '../../src/testing/index.ts';
import { phaseOf, turnOf } from '../scripted-author.ts';

const FIXED = `// Turns a title into a URL slug: lower case, accents dropped, runs of anything else become one hyphen.
export function slugify(title) {
  return title
    .normalize('NFKD')
    .replace(/[\\u0300-\\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
`;

const TESTS = `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from './slugify.mjs';

test('joins words with hyphens', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('collapses and trims whitespace', () => {
  assert.equal(slugify('  Hello   World  '), 'hello-world');
});

test('drops accents and punctuation', () => {
  assert.equal(slugify('Crème Brûlée, Again!'), 'creme-brulee-again');
});
`;

const PLAN = {
  goal: 'Fix slugify so that accents, punctuation and repeated spaces give correct slugs',
  steps: [
    { id: 's1', title: 'Write the fixed slugify.mjs and its tests to progress/artifacts/', tools: ['fs_write'] },
    { id: 's2', title: 'Run the tests', tools: ['test_runner'] },
  ],
  allowed_tools: ['fs_write', 'test_runner'],
  acceptance: [
    {
      id: 'a1',
      criterion: 'progress/artifacts/slugify.mjs exists',
      check: { type: 'file_exists', path: 'artifacts/slugify.mjs' },
    },
    { id: 'a2', criterion: 'The tests in progress/artifacts/ pass', check: { type: 'test_runner' } },
  ],
};

/** A model that answers the code task's phases plausibly. */
export function codeAuthor(): ScriptedModel {
  return new ScriptedModel(
    (options) => {
      const phase = phaseOf(options);
      const turn = turnOf(options);
      if (phase === 'gather') {
        if (turn === 0) {
          return {
            toolCalls: [
              { id: 'call_read_src', name: 'fs_read', input: { path: 'task/src/slugify.mjs' } },
              { id: 'call_read_test', name: 'fs_read', input: { path: 'task/test/slugify.test.mjs' } },
            ],
            usage: { inputTokens: 1380, outputTokens: 61 },
          };
        }
        return {
          text:
            '## Findings\n\n- `slugify` only lower-cases and replaces single spaces with hyphens (task/src/slugify.mjs).\n' +
            '- So repeated or leading spaces give repeated or leading hyphens, and accents and punctuation pass through.\n' +
            '- The tests expect `hello-world` for padded input and `creme-brulee-again` for "Crème Brûlée, Again!" (task/test/slugify.test.mjs).\n' +
            '- Fix: decompose accents (NFKD) and drop combining marks, lower-case, turn runs of other characters into one hyphen, trim hyphens.',
          usage: { inputTokens: 1720, outputTokens: 138, cachedInputTokens: 1280 },
        };
      }
      if (phase === 'plan')
        return {
          text: JSON.stringify(PLAN, null, 2),
          usage: { inputTokens: 1960, outputTokens: 240, cachedInputTokens: 1280 },
        };
      if (phase === 'act') {
        if (turn === 0) {
          return {
            toolCalls: [
              {
                id: 'call_write_src',
                name: 'fs_write',
                input: { path: 'progress/artifacts/slugify.mjs', content: FIXED },
              },
              {
                id: 'call_write_test',
                name: 'fs_write',
                input: { path: 'progress/artifacts/slugify.test.mjs', content: TESTS },
              },
            ],
            usage: { inputTokens: 2240, outputTokens: 402, cachedInputTokens: 1280 },
          };
        }
        if (turn === 1) {
          return {
            toolCalls: [{ id: 'call_run_tests', name: 'test_runner', input: {} }],
            usage: { inputTokens: 2710, outputTokens: 22, cachedInputTokens: 2176 },
          };
        }
        return {
          text: 'Fixed slugify in progress/artifacts/slugify.mjs; the three tests in progress/artifacts/slugify.test.mjs pass.',
          usage: { inputTokens: 2860, outputTokens: 33, cachedInputTokens: 2560 },
        };
      }
      if (phase === 'verify') {
        return {
          text: JSON.stringify({
            criteria: [
              {
                id: 'a1',
                passed: true,
                evidence: 'The fixed module exists and handles accents, punctuation and whitespace.',
              },
              { id: 'a2', passed: true, evidence: 'The test runner reports the three tests passing.' },
            ],
          }),
          usage: { inputTokens: 2150, outputTokens: 71, cachedInputTokens: 1280 },
        };
      }
      return 'I am not sure what is being asked.';
    },
    { provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5-20250929' },
  );
}
