import { describe, expect, it } from 'vitest';
import { assistantMessage, type Message, systemMessage, textOf, userMessage } from '../core/messages.ts';
import { estimateTokens } from '../core/tokens.ts';
import { historyPolicyFromSpec, renderHistory, SUMMARY_HEADING } from './history-policy.ts';

const call = (id: string, text?: string): Message =>
  assistantMessage([
    ...(text === undefined ? [] : [{ type: 'text' as const, text }]),
    { type: 'tool-call', toolCallId: id, toolName: 'grep', input: { q: id } },
  ]);
const result = (id: string): Message => ({
  role: 'tool',
  content: [{ type: 'tool-result', toolCallId: id, toolName: 'grep', output: { type: 'text', value: `out ${id}` } }],
});

const seed: Message[] = [
  systemMessage('Be brief.'),
  userMessage('Earlier question about the parser'),
  assistantMessage('Earlier answer'),
];
const session: Message[] = [
  userMessage('Find the bug'),
  call('c1', 'Looking'),
  result('c1'),
  call('c2'),
  result('c2'),
  assistantMessage('Found it in parser.ts'),
  userMessage('Fix it'),
];

/** A compact view: role and text, with tool parts as ids. */
function view(messages: Message[]): string[] {
  return messages.map((m) => {
    if (typeof m.content === 'string') return `${m.role}: ${m.content}`;
    const tools = m.content.flatMap((p) =>
      p.type === 'tool-call' ? [`call ${p.toolCallId}`] : p.type === 'tool-result' ? [`result ${p.toolCallId}`] : [],
    );
    return [`${m.role}: ${textOf(m)}`, ...tools].join(' | ');
  });
}

describe('renderHistory', () => {
  it('none: nothing', () => {
    expect(renderHistory({ seed, session, policy: { mode: 'none' } })).toEqual([]);
  });

  it('seedOnly: the seeds, without this run', () => {
    expect(renderHistory({ seed, session, policy: { mode: 'seedOnly' } })).toEqual(seed);
  });

  it('lastN: seeds and the last n visible messages; tool parts dropped and emptied messages removed', () => {
    const out = renderHistory({ seed, session, policy: { mode: 'lastN', n: 3 } });
    expect(view(out)).toEqual([
      'system: Be brief.',
      'user: Earlier question about the parser',
      'assistant: Earlier answer',
      'assistant: Looking',
      'assistant: Found it in parser.ts',
      'user: Fix it',
    ]);
    expect(view(renderHistory({ seed, session, policy: { mode: 'lastN', n: 0 } }))).toHaveLength(3);
  });

  it('includeTools: keeps paired tool calls and results, drops a result whose call fell out of the window', () => {
    const four = renderHistory({ seed: [], session, policy: { mode: 'lastN', n: 4, includeTools: true } });
    expect(view(four)).toEqual([
      'assistant:  | call c2',
      'tool:  | result c2',
      'assistant: Found it in parser.ts',
      'user: Fix it',
    ]);
    const five = renderHistory({ seed: [], session, policy: { mode: 'lastN', n: 5, includeTools: true } });
    expect(view(five)).toEqual(view(four));
    const open = renderHistory({
      seed: [],
      session: [...session, call('c3', 'One more')],
      policy: { mode: 'lastN', n: 2, includeTools: true },
    });
    expect(view(open)).toEqual(['user: Fix it', 'assistant: One more']);
  });

  it('strips tool parts from seeds too unless includeTools', () => {
    const toolSeed = [userMessage('q'), call('s1'), result('s1'), assistantMessage('a')];
    expect(view(renderHistory({ seed: toolSeed, policy: { mode: 'seedOnly' } }))).toEqual(['user: q', 'assistant: a']);
    expect(renderHistory({ seed: toolSeed, policy: { mode: 'seedOnly', includeTools: true } })).toEqual(toolSeed);
  });

  it('summary: seeds, then the caller summary as a system message within maxTokens', () => {
    const out = renderHistory({ seed, session, policy: { mode: 'summary', maxTokens: 50 }, summary: ' Bug found. ' });
    expect(out).toEqual([...seed, systemMessage(`${SUMMARY_HEADING}\nBug found.`)]);
    const long = renderHistory({
      seed: [],
      session,
      policy: { mode: 'summary', maxTokens: 20 },
      summary: 'w '.repeat(500),
    });
    expect(long).toHaveLength(1);
    const text = textOf(long[0] as Message);
    expect(estimateTokens(text)).toBeLessThanOrEqual(20);
    expect(text.startsWith(SUMMARY_HEADING)).toBe(true);
    expect(text.endsWith('…')).toBe(true);
    expect(renderHistory({ seed, session, policy: { mode: 'summary', maxTokens: 50 } })).toEqual(seed);
  });

  it('drops seeded messages whose text is already in the task context', () => {
    const taskContext = '# Findings\nEarlier question   about the\nparser\n';
    const image = userMessage([
      { type: 'text', text: 'Be brief.' },
      { type: 'image', data: { type: 'url', url: 'https://x/y.png' }, mediaType: 'image/png' },
    ]);
    const out = renderHistory({
      seed: [...seed, image],
      policy: { mode: 'seedOnly' },
      taskContext: `${taskContext}Be brief.`,
    });
    expect(view(out)).toEqual(['assistant: Earlier answer', 'user: Be brief.']);
    const session2 = [userMessage('Earlier answer')];
    expect(
      renderHistory({ seed: [], session: session2, policy: { mode: 'lastN', n: 5 }, taskContext: 'Earlier answer' }),
    ).toEqual(session2);
  });

  it('refuses a bad n or maxTokens', () => {
    expect(() => renderHistory({ seed, policy: { mode: 'lastN', n: -1 } })).toThrow(/non-negative integer/);
    expect(() => renderHistory({ seed, policy: { mode: 'summary', maxTokens: 0 } })).toThrow(/positive integer/);
  });
});

describe('historyPolicyFromSpec', () => {
  it('maps every TaskSpec policy', () => {
    const base = { last_n: 8, summary_max_tokens: 300 };
    expect(historyPolicyFromSpec({ ...base, policy: 'none' })).toEqual({ mode: 'none' });
    expect(historyPolicyFromSpec({ ...base, policy: 'seedOnly' })).toEqual({ mode: 'seedOnly' });
    expect(historyPolicyFromSpec({ ...base, policy: 'lastN' })).toEqual({ mode: 'lastN', n: 8 });
    expect(historyPolicyFromSpec({ ...base, policy: 'summary' })).toEqual({ mode: 'summary', maxTokens: 300 });
    expect(historyPolicyFromSpec({ ...base, policy: 'includeTools' })).toEqual({
      mode: 'lastN',
      n: 8,
      includeTools: true,
    });
  });
});
