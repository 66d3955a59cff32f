// The scripted stand-ins that recorded the cassettes of the shipped eval suite (evals/examples/) through the real
// governed loop: plausible answers for each phase of each task. `node scripts/record-eval-suite.ts` re-records them;
// `agency eval evals/examples --model <spec> --record` records them against a real model instead (docs/evals.md).
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { codeAuthor } from '../examples/code/scripted-author.ts';
import { phaseOf, turnOf } from '../examples/scripted-author.ts';
import { ScriptedModel } from '../src/testing/index.ts';

type Script = {
  reads: string[];
  findings: string;
  plan: {
    goal: string;
    steps: unknown[];
    allowed_tools: string[];
    acceptance: Array<{ id: string; criterion: string; check?: unknown }>;
  };
  writes: Array<{ path: string; content: string }>;
  done: string;
  evidence: Record<string, string>;
};

// One model call per turn of each phase: read the inputs, report findings, plan, write, say it is done, judge.
function scriptedAuthor(script: Script): LanguageModelV4 {
  return new ScriptedModel(
    (options) => {
      const phase = phaseOf(options);
      const turn = turnOf(options);
      if (phase === 'gather' && turn === 0)
        return {
          toolCalls: script.reads.map((path, index) => ({
            id: `call_read_${index}`,
            name: 'fs_read',
            input: { path },
          })),
          usage: { inputTokens: 1290, outputTokens: 58 },
        };
      if (phase === 'gather')
        return { text: script.findings, usage: { inputTokens: 1850, outputTokens: 160, cachedInputTokens: 1152 } };
      if (phase === 'plan')
        return {
          text: JSON.stringify(script.plan, null, 2),
          usage: { inputTokens: 2010, outputTokens: 230, cachedInputTokens: 1152 },
        };
      if (phase === 'act' && turn === 0)
        return {
          toolCalls: script.writes.map((write, index) => ({
            id: `call_write_${index}`,
            name: 'fs_write',
            input: write,
          })),
          usage: { inputTokens: 2260, outputTokens: 420, cachedInputTokens: 1152 },
        };
      if (phase === 'act')
        return { text: script.done, usage: { inputTokens: 2750, outputTokens: 40, cachedInputTokens: 2176 } };
      if (phase === 'verify')
        return {
          text: JSON.stringify({
            criteria: script.plan.acceptance.map(({ id }) => ({
              id,
              passed: true,
              evidence: script.evidence[id] ?? 'Checked.',
            })),
          }),
          usage: { inputTokens: 2190, outputTokens: 90, cachedInputTokens: 1152 },
        };
      return 'I am not sure what is being asked.';
    },
    { provider: 'anthropic.messages', modelId: 'claude-sonnet-4-5-20250929' },
  );
}

const RELEASE_NOTES = `# Tidewater 2.3

## Before you upgrade

The \`retries\` setting has moved: write it as \`network.retries\` in your config file. Tidewater 2.3 refuses a
config that still has \`retries\` at the top level, so change it before you upgrade.

## New

- \`tidewater sync --since <date>\` copies only the files changed after that date.
- \`--quiet\` hides the progress bars.
- \`--json\` output now counts the files skipped (\`skipped\`).

## Fixed

- Files whose names contain a line break are synced instead of being skipped without a word.
- An expired login token is refreshed once, instead of failing the whole run.
`;

const INCIDENT = {
  title: 'Checkout failures: orders-db connection pool exhausted by invoice-export',
  started_at: '2026-11-14T09:12Z',
  resolved_at: '2026-11-14T09:52Z',
  duration_minutes: 40,
  root_cause:
    "The invoice-export batch job, moved to orders-db's main connection pool by the previous week's config change, held 150 of its 200 connections; the pricing-service deploy suspected first was not the cause (its rollback changed nothing).",
  impact: 'About 2,300 failed checkouts; checkout p99 latency above 4 s and an error rate of up to 18% for 40 minutes.',
  follow_ups: [
    'Alert on connection pool saturation above 80%.',
    'Review config changes that move jobs between connection pools.',
  ],
};

const authors: Record<string, () => LanguageModelV4> = {
  'fix-slugify': codeAuthor,
  'release-notes': () =>
    scriptedAuthor({
      reads: ['task/CHANGELOG.md'],
      findings:
        '## Findings\n\n- 2.3.0 adds `sync --since <date>`, `--quiet`, and a `skipped` count in `--json` output (task/CHANGELOG.md).\n' +
        '- It fixes files with newlines in their names being skipped, and expired tokens failing the run (task/CHANGELOG.md).\n' +
        '- Breaking: `retries` moved to `network.retries`; the old key is refused (task/CHANGELOG.md).\n' +
        '- Internal only, to leave out: the transfer-queue refactor and the undici bump (task/CHANGELOG.md).',
      plan: {
        goal: 'Write user-facing release notes for Tidewater 2.3 from the changelog',
        steps: [{ id: 's1', title: 'Write progress/artifacts/release-notes.md', tools: ['fs_write'] }],
        allowed_tools: ['fs_write'],
        acceptance: [
          {
            id: 'a1',
            criterion: 'progress/artifacts/release-notes.md exists',
            check: { type: 'file_exists', path: 'artifacts/release-notes.md' },
          },
          {
            id: 'a2',
            criterion: 'A "Before you upgrade" section names the breaking change',
            check: { type: 'contains', path: 'artifacts/release-notes.md', text: 'network.retries' },
          },
          { id: 'a3', criterion: 'Every user-visible change of 2.3.0 is mentioned, and no internal one' },
        ],
      },
      writes: [{ path: 'progress/artifacts/release-notes.md', content: RELEASE_NOTES }],
      done: 'Wrote the release notes for 2.3 to progress/artifacts/release-notes.md.',
      evidence: {
        a1: 'The file exists.',
        a2: 'The first section, "Before you upgrade", says `retries` moved to `network.retries`.',
        a3: 'The three features and two fixes are listed; the refactor and the dependency bump are not.',
      },
    }),
  'incident-report': () =>
    scriptedAuthor({
      reads: ['task/oncall-log.md', 'task/incident.schema.json'],
      findings:
        '## Findings\n\n- First alert 09:12 UTC, all clear 09:52 UTC: 40 minutes (task/oncall-log.md).\n' +
        '- The pricing-service rollback changed nothing; the confirmed cause is invoice-export holding 150 of 200 orders-db connections after a config change moved it to the main pool (task/oncall-log.md).\n' +
        '- Impact: about 2,300 failed checkouts (task/oncall-log.md).\n' +
        '- The schema requires title, started_at, resolved_at, duration_minutes, root_cause, impact and follow_ups, and no other field (task/incident.schema.json).',
      plan: {
        goal: 'Write the schema-valid incident record of the 14 November outage',
        steps: [{ id: 's1', title: 'Write progress/artifacts/incident.json', tools: ['fs_write'] }],
        allowed_tools: ['fs_write'],
        acceptance: [
          {
            id: 'a1',
            criterion: 'progress/artifacts/incident.json exists',
            check: { type: 'file_exists', path: 'artifacts/incident.json' },
          },
          { id: 'a2', criterion: 'The duration runs from the first alert to the all-clear' },
          { id: 'a3', criterion: 'The root cause is the one the log confirms' },
        ],
      },
      writes: [{ path: 'progress/artifacts/incident.json', content: `${JSON.stringify(INCIDENT, null, 2)}\n` }],
      done: 'Wrote the incident record to progress/artifacts/incident.json.',
      evidence: {
        a1: 'The file exists.',
        a2: '09:12 to 09:52 is 40 minutes.',
        a3: 'The record names the invoice-export job and the pool change, not the pricing-service deploy.',
      },
    }),
};

/** The scripted stand-in for a case of the shipped suite. */
export function evalSuiteAuthor(name: string): LanguageModelV4 {
  const author = authors[name];
  if (!author) throw new Error(`No scripted author for case "${name}" of the shipped eval suite`);
  return author();
}
