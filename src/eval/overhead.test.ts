import { describe, expect, it } from 'vitest';
import { measureOverhead, sumOverheads } from './overhead.ts';
import type { MeteredCall } from './request-meter.ts';

const BRIEF = '# Fix the parser\n\nThe parser drops the last line of every file.\n';
const INPUT = 'export function parse(text) { return text.split("\\n").slice(0, -1); }\n';
const tools = [
  {
    type: 'function' as const,
    name: 'fs_read',
    description: 'Read a UTF-8 text file from the allowed folders.',
    inputSchema: { type: 'object' as const },
  },
];

function call(prompt: MeteredCall['prompt'], inputTokens?: number): MeteredCall {
  return { prompt, tools, answer: 'The parser slices off the last line.', inputTokens, outputTokens: 10 };
}

describe('measureOverhead', () => {
  it('gives whole tokens that add up to the transcript, however the characters split', () => {
    // Three origins of 2 characters each share 7 input tokens: rounding each third on its own would give 6.
    const thirds: MeteredCall = {
      prompt: [
        { role: 'system', content: 'ab' },
        { role: 'assistant', content: [] },
      ],
      tools: undefined,
      answer: '',
      inputTokens: 7,
      outputTokens: 0,
    };
    const overhead = measureOverhead([thirds], { brief: '', inputs: [] });
    expect(overhead.transcriptTokens).toBe(7);
    expect(Object.values(overhead.parts).sort()).toEqual([0, 2, 2, 3]);
  });

  it("attributes the system prompt and the phase ask to agency, the brief, inputs and answers to the task's side", () => {
    const system = 'You are a careful agent.';
    const ask = 'Phase: GATHER. Read the inputs.';
    const quoted = `# Task brief (task/brief.md)\n\n${BRIEF}\n# Input (task/parse.mjs)\n\n${INPUT}`;
    const first = call([
      { role: 'system', content: system },
      {
        role: 'user',
        content: [
          { type: 'text', text: quoted },
          { type: 'text', text: ask },
        ],
      },
    ]);
    const overhead = measureOverhead([first], { brief: BRIEF, inputs: [INPUT] });
    const chars = {
      framework:
        system.length +
        '# Task brief (task/brief.md)\n\n'.length +
        '\n# Input (task/parse.mjs)\n\n'.length +
        ask.length,
      tools: JSON.stringify(tools).length,
    };
    const all = JSON.stringify(tools).length + system.length + quoted.length + ask.length;
    // Without recorded usage the input is estimated at 4 characters a token and shared out by characters.
    const input = Math.ceil(all / 4);
    expect(overhead.parts.framework).toBe(Math.round((input * chars.framework) / all));
    expect(overhead.parts.tools).toBe(Math.round((input * chars.tools) / all));
    expect(overhead.parts.brief).toBeGreaterThan(0);
    expect(overhead.parts.content).toBeGreaterThan(10);
    expect(overhead.transcriptTokens).toBe(input + 10);
    expect(overhead.share).toBeCloseTo(overhead.parts.framework / overhead.transcriptTokens, 10);
  });

  it("counts an earlier answer quoted in a later prompt, and a structured answer's values, as the model's", () => {
    const plan = JSON.stringify({ goal: 'Keep the last line of every file' });
    const calls: MeteredCall[] = [
      { ...call([{ role: 'user', content: [{ type: 'text', text: 'Phase: PLAN.' }] }], 100), answer: plan },
      call([{ role: 'user', content: [{ type: 'text', text: 'Goal: Keep the last line of every file' }] }], 100),
    ];
    const [, second] = calls;
    const alone = measureOverhead([second as MeteredCall], { brief: '', inputs: [] });
    const after = measureOverhead(calls, { brief: '', inputs: [] });
    expect(
      after.parts.framework - measureOverhead([calls[0] as MeteredCall], { brief: '', inputs: [] }).parts.framework,
    ).toBeLessThan(alone.parts.framework);
  });

  it('uses the recorded input tokens, and counts tool results and assistant turns as content', () => {
    const overhead = measureOverhead(
      [
        call(
          [
            {
              role: 'assistant',
              content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'fs_read', input: { path: 'a' } }],
            },
            {
              role: 'tool',
              content: [
                { type: 'tool-result', toolCallId: 'c1', toolName: 'fs_read', output: { type: 'text', value: 'x' } },
              ],
            },
          ],
          1000,
        ),
      ],
      { brief: '', inputs: [] },
    );
    expect(overhead.parts.framework).toBe(0);
    expect(overhead.parts.brief).toBe(0);
    expect(overhead.parts.tools + overhead.parts.content).toBe(1010);
  });

  it('sums runs by their parts, not by averaging shares, and an empty transcript has no overhead', () => {
    const a = { parts: { framework: 10, brief: 0, tools: 0, content: 90 }, transcriptTokens: 100, share: 0.1 };
    const b = { parts: { framework: 0, brief: 0, tools: 0, content: 900 }, transcriptTokens: 900, share: 0 };
    expect(sumOverheads([a, b])).toEqual({
      parts: { framework: 10, brief: 0, tools: 0, content: 990 },
      transcriptTokens: 1000,
      share: 0.01,
    });
    expect(measureOverhead([], { brief: BRIEF, inputs: [] })).toMatchObject({ transcriptTokens: 0, share: 0 });
  });
});
