// The scripted stand-in that recorded examples/research/cassette.jsonl through the real governed loop: plausible
// answers for each phase of the research task. Re-record against a real model with:
//   npm run demo -- --example research --model openai:gpt-4o --record
import { ScriptedModel } from '../../src/testing/index.ts';
import { phaseOf, turnOf } from '../scripted-author.ts';
import { RECORDED_SITE } from './serve-site.ts';

// The author answers as the cassette was recorded: with the recorded address, whatever port the site is on now.
const SURVEY = `http://${RECORDED_SITE}/survey.html`;
const RELEASE = `http://${RECORDED_SITE}/press-release.html`;

const FINDINGS = `## Findings

- **Weekly cycling is up**: 38% of residents cycle at least weekly, up from 29% in 2021 (${SURVEY}).
- **Junctions are the main barrier**: 61% cite unsafe junctions, ahead of traffic speed (44%) and secure parking (37%) (${SURVEY}).
- **Protected lanes are popular**: 72% support protected lanes on main roads, including 58% of non-cyclists (${SURVEY}).
- **The council's plan**: 12 km of protected lanes on five main roads by the end of 2026, EUR 8.4 million, i.e. EUR 0.7 million per km; junction redesigns are not in this budget (${RELEASE}).
- **Pilot evidence**: Harbour Street's protected lane cut collisions involving cyclists by 23% in its first year while cycle traffic rose 41% (${RELEASE}).
- Operator notes: the committee reads this in five minutes; they care about cost per km and safety; no speculation (task/notes.md).`;

const PLAN = {
  goal: "Write a one-page brief on the 2024 cycling survey for Riverton's transport committee",
  steps: [
    {
      id: 's1',
      title: 'Draft the brief: recommendation first, then the numbers that matter, with sources',
      tools: ['fs_write'],
    },
    { id: 's2', title: 'Keep it under 400 words and cite both URLs' },
  ],
  allowed_tools: ['fs_write'],
  acceptance: [
    {
      id: 'a1',
      criterion: 'progress/artifacts/brief.md exists',
      check: { type: 'file_exists', path: 'artifacts/brief.md' },
    },
    { id: 'a2', criterion: 'It leads with a recommendation' },
    {
      id: 'a3',
      criterion: 'It cites the survey by URL',
      check: { type: 'contains', path: 'artifacts/brief.md', text: SURVEY },
    },
    {
      id: 'a4',
      criterion: 'It cites the press release by URL',
      check: { type: 'contains', path: 'artifacts/brief.md', text: RELEASE },
    },
    { id: 'a5', criterion: 'It is under 400 words' },
  ],
};

const BRIEF = `# Cycling in Riverton: brief for the transport committee

**Recommendation: approve the 12 km protected-lane programme as planned, and ask officers to cost junction
redesigns in time for the 2025 budget, since junctions are the barrier residents cite most.**

## The numbers that matter

- **Demand is rising.** 38% of residents now cycle at least weekly, up from 29% in 2021.
- **Safety is the constraint.** 61% name unsafe junctions as their main barrier, more than traffic speed (44%).
- **Protected lanes work here.** The Harbour Street pilot cut collisions involving cyclists by 23% in its first
  year while cycle traffic on the street rose 41%.
- **Cost.** The programme is EUR 8.4 million for 12 km, EUR 0.7 million per kilometre. Junction redesigns are
  outside this budget.
- **Support is broad.** 72% back protected lanes on main roads, including 58% of residents who never cycle.

## What is not yet known

The cost of junction redesigns, which the council will estimate in 2025. The survey's margin of error is ±2.1
points.

## Sources

- Riverton Cycling Survey 2024: Results, ${SURVEY}
- Council press release, 4 June 2024, ${RELEASE}
`;

/** A model that answers the research task's phases plausibly. */
export function researchAuthor(): ScriptedModel {
  return new ScriptedModel(
    (options) => {
      const phase = phaseOf(options);
      const turn = turnOf(options);
      if (phase === 'gather') {
        if (turn === 0) {
          return {
            text: 'I will read the links and the notes first.',
            toolCalls: [
              { id: 'call_gather_links', name: 'fs_read', input: { path: 'task/links.txt' } },
              { id: 'call_gather_notes', name: 'fs_read', input: { path: 'task/notes.md' } },
            ],
            usage: { inputTokens: 1420, outputTokens: 64 },
          };
        }
        if (turn === 1) {
          return {
            toolCalls: [
              { id: 'call_fetch_survey', name: 'http_fetch', input: { url: SURVEY } },
              { id: 'call_fetch_release', name: 'http_fetch', input: { url: RELEASE } },
            ],
            usage: { inputTokens: 1610, outputTokens: 58, cachedInputTokens: 1280 },
          };
        }
        return { text: FINDINGS, usage: { inputTokens: 2890, outputTokens: 262, cachedInputTokens: 1536 } };
      }
      if (phase === 'plan')
        return {
          text: JSON.stringify(PLAN, null, 2),
          usage: { inputTokens: 2210, outputTokens: 298, cachedInputTokens: 1280 },
        };
      if (phase === 'act') {
        if (turn === 0) {
          return {
            toolCalls: [
              {
                id: 'call_write_brief',
                name: 'fs_write',
                input: { path: 'progress/artifacts/brief.md', content: BRIEF },
              },
            ],
            usage: { inputTokens: 2480, outputTokens: 395, cachedInputTokens: 1280 },
          };
        }
        return {
          text: 'Wrote the brief to progress/artifacts/brief.md: a recommendation first, five figures with sources, about 230 words.',
          usage: { inputTokens: 2920, outputTokens: 31, cachedInputTokens: 2304 },
        };
      }
      if (phase === 'verify') {
        return {
          text: JSON.stringify({
            criteria: [
              { id: 'a1', passed: true, evidence: 'The file exists.' },
              {
                id: 'a2',
                passed: true,
                evidence: 'The first paragraph is a bolded recommendation to approve the programme.',
              },
              { id: 'a3', passed: true, evidence: 'The survey URL appears under Sources.' },
              { id: 'a4', passed: true, evidence: 'The press release URL appears under Sources.' },
              { id: 'a5', passed: true, evidence: 'About 230 words.' },
            ],
          }),
          usage: { inputTokens: 2380, outputTokens: 118, cachedInputTokens: 1280 },
        };
      }
      return 'I am not sure what is being asked.';
    },
    { provider: 'openai.responses', modelId: 'gpt-4o-2024-08-06' },
  );
}
