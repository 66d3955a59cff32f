import { describe, expect, it } from 'vitest';
import { AgencyError } from '../core/errors.ts';
import { parseHistoryJsonl, parseHistoryMarkdown } from './history.ts';

function errorOf(run: () => unknown): AgencyError {
  try {
    run();
  } catch (error) {
    if (AgencyError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an error');
}

describe('parseHistoryJsonl', () => {
  it('reads agency messages and {role, content: string} lines, skipping blank lines', () => {
    const text = [
      '{"role":"system","content":"Be brief."}',
      '',
      '{"role":"user","content":"Hi"}',
      '{"role":"assistant","content":[{"type":"text","text":"Checking."},{"type":"tool-call","toolCallId":"c1","toolName":"lookup","input":{"q":"x"}}]}',
      '{"role":"tool","content":[{"type":"tool-result","toolCallId":"c1","toolName":"lookup","output":{"type":"json","value":{"ok":true}}}]}',
      '{"role":"assistant","content":"Done.","extra":"dropped"}\r',
    ].join('\n');
    expect(parseHistoryJsonl(text)).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: { q: 'x' } },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'lookup', output: { type: 'json', value: { ok: true } } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
  });

  it('names the file and line of a line that is not JSON', () => {
    const error = errorOf(() => parseHistoryJsonl('{"role":"user","content":"ok"}\n\n{"role": "user",', 'x/h.jsonl'));
    expect(error.code).toBe('history_invalid');
    expect(error.message).toMatch(/^x\/h\.jsonl:3: not valid JSON \(/);
    expect(error.details).toEqual({ file: 'x/h.jsonl', line: 3 });
  });

  it('names the line and field of a message of the wrong shape', () => {
    expect(errorOf(() => parseHistoryJsonl('{"role":"user","content":[{"type":"text","text":3}]}')).message).toBe(
      'task/history.jsonl:1: content.0.text: Invalid input: expected string, received number',
    );
    expect(errorOf(() => parseHistoryJsonl('\n{"role":"robot","content":"x"}')).message).toMatch(
      /^task\/history\.jsonl:2: role: /,
    );
    expect(errorOf(() => parseHistoryJsonl('{"role":"tool","content":"result"}')).message).toMatch(
      /^task\/history\.jsonl:1: content: /,
    );
    expect(errorOf(() => parseHistoryJsonl('[1,2]')).message).toMatch(/^task\/history\.jsonl:1: /);
  });
});

describe('parseHistoryMarkdown', () => {
  it('splits on role headings, keeps inner formatting and ignores headings inside code fences', () => {
    const text = [
      '# Prior conversation',
      '<!-- exported from chat -->',
      '',
      '## System',
      'Answer in English.',
      '## user (Ada, 3 May)',
      '',
      'Can you fix the build?',
      '',
      '## Plan',
      '- first',
      '## assistant',
      'Here is the fix:',
      '```md',
      '## user',
      '```',
      '  indented line',
      '',
    ].join('\n');
    expect(parseHistoryMarkdown(text)).toEqual([
      { role: 'system', content: 'Answer in English.' },
      { role: 'user', content: [{ type: 'text', text: 'Can you fix the build?\n\n## Plan\n- first' }] },
      {
        role: 'assistant',
        content: [{ type: 'text', text: 'Here is the fix:\n```md\n## user\n```\n  indented line' }],
      },
    ]);
  });

  it('refuses text before the first heading, empty messages and unclosed fences, naming the line', () => {
    expect(errorOf(() => parseHistoryMarkdown('# Title\nhello\n## user\nhi')).message).toBe(
      'task/history.md:2: text before the first "## user", "## assistant" or "## system" heading',
    );
    expect(errorOf(() => parseHistoryMarkdown('## user\nhi\n## assistant\n\n## user\nagain')).message).toBe(
      'task/history.md:3: "## assistant" has no text',
    );
    const fence = errorOf(() => parseHistoryMarkdown('## user\nhi\n~~~\n## assistant\nno', 'h.md'));
    expect(fence.message).toBe('h.md:3: code fence opened here is never closed');
    expect(fence.details).toEqual({ file: 'h.md', line: 3 });
  });

  it('returns no messages for an empty file', () => {
    expect(parseHistoryMarkdown('')).toEqual([]);
  });
});
