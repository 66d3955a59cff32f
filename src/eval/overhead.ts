import { tokensForChars } from '../core/tokens.ts';
import type { MeteredCall } from './request-meter.ts';

/** Where the tokens of a run's transcript came from. */
export type TranscriptParts = {
  /** What agency adds: system prompts, phase asks and plan scaffolding, section and memory headers, file lists. */
  framework: number;
  /** The task's brief. */
  brief: number;
  /** Tool definitions, and tool descriptions quoted in a prompt. */
  tools: number;
  /** The task's input files, tool calls and results, the model's answers (and what agency quotes of them). */
  content: number;
};

/** The framework overhead of one run: its transcript's tokens by origin, and agency's share of them. */
export type Overhead = {
  parts: TranscriptParts;
  /** Every input and output token of every model call. */
  transcriptTokens: number;
  /** `parts.framework / transcriptTokens`, from 0 to 1 (0 for an empty transcript). */
  share: number;
};

/** What the task brought, to tell it apart from what agency added. */
export type OverheadSources = { brief: string; inputs: string[] };

type Label = Exclude<keyof TranscriptParts, 'framework'>;
const LABELS: Record<Label, number> = { brief: 1, tools: 2, content: 3 };
const NAMES = ['framework', 'brief', 'tools', 'content'] as const;
// Shorter lines (a bare heading, a list marker) say too little about where they came from to be attributed.
const MIN_LINE = 12;

/**
 * Attributes every token of a run's model calls (docs/evals.md, "Framework overhead"). Tool definitions are `tools`;
 * assistant and tool messages and the answers are `content`; system and user text is split by character: a line
 * that is a line of the brief is `brief`, of an input file or an earlier answer `content`, of a tool's description
 * `tools`, and whatever is left is `framework`. Each call's recorded input tokens are shared out in proportion to
 * the characters of each origin; its output tokens are `content`.
 */
export function measureOverhead(calls: readonly MeteredCall[], sources: OverheadSources): Overhead {
  const parts: TranscriptParts = { framework: 0, brief: 0, tools: 0, content: 0 };
  const answers: string[] = [];
  for (const call of calls) {
    const chars = charsOf(call, needlesFor(call, sources, answers));
    const total = chars.reduce((sum, value) => sum + value, 0);
    const input = call.inputTokens ?? tokensForChars(total);
    chars.forEach((value, index) => {
      parts[NAMES[index] as keyof TranscriptParts] += total === 0 ? 0 : (input * value) / total;
    });
    parts.content += call.outputTokens ?? tokensForChars(call.answer.length);
    if (call.answer) answers.push(call.answer);
  }
  return sumOverheads([{ parts: roundedParts(parts), transcriptTokens: 0, share: 0 }]);
}

// Whole tokens that add up to the transcript: each part rounded down, and the tokens left over given to the parts
// with the largest remainders (rounding each part on its own could leave the sum a token off the call's counts).
function roundedParts(parts: TranscriptParts): TranscriptParts {
  const total = Math.round(NAMES.reduce((sum, name) => sum + parts[name], 0));
  const rounded = Object.fromEntries(NAMES.map((name) => [name, Math.floor(parts[name])])) as TranscriptParts;
  let left = total - NAMES.reduce((sum, name) => sum + rounded[name], 0);
  const byRemainder = [...NAMES].sort((a, b) => parts[b] - Math.floor(parts[b]) - (parts[a] - Math.floor(parts[a])));
  for (const name of byRemainder) {
    if (left <= 0) break;
    rounded[name] += 1;
    left -= 1;
  }
  return rounded;
}

function needlesFor(call: MeteredCall, sources: OverheadSources, answers: string[]): Map<string, Label> {
  const needles = new Map<string, Label>();
  const add = (text: string, label: Label) => {
    for (const line of text.split('\n')) {
      const trimmed = line.trim();
      if (trimmed.length >= MIN_LINE && !needles.has(trimmed)) needles.set(trimmed, label);
    }
  };
  add(sources.brief, 'brief');
  for (const tool of call.tools ?? []) if (tool.type === 'function' && tool.description) add(tool.description, 'tools');
  for (const input of sources.inputs) add(input, 'content');
  for (const answer of answers) for (const text of [answer, ...jsonStrings(answer)]) add(text, 'content');
  for (const message of call.prompt)
    if (message.role === 'assistant')
      for (const part of message.content) if (part.type === 'text') add(part.text, 'content');
  return needles;
}

// A structured answer (a plan, a judgement) is quoted by its values, not as JSON: its strings are the model's too.
function jsonStrings(answer: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(answer);
  } catch {
    return [];
  }
  const strings: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') strings.push(node);
    else if (Array.isArray(node)) node.forEach(walk);
    else if (typeof node === 'object' && node !== null) Object.values(node).forEach(walk);
  };
  walk(value);
  return strings;
}

// Characters by origin, in the order of NAMES.
function charsOf(call: MeteredCall, needles: Map<string, Label>): number[] {
  const chars = [0, 0, JSON.stringify(call.tools ?? []).length, 0];
  for (const message of call.prompt) {
    if (message.role === 'system') {
      addTo(chars, attribute(message.content, needles));
    } else if (message.role === 'user') {
      for (const part of message.content)
        if (part.type === 'text') addTo(chars, attribute(part.text, needles));
        else chars[3] = (chars[3] ?? 0) + JSON.stringify(part).length;
    } else {
      chars[3] = (chars[3] ?? 0) + JSON.stringify(message.content).length;
    }
  }
  return chars;
}

function addTo(into: number[], from: number[]): void {
  from.forEach((value, index) => (into[index] = (into[index] ?? 0) + value));
}

// Marks each character with the origin of the longest known line covering it; white space between marked
// characters goes with the mark before it, so a quoted block's line breaks are the block's.
function attribute(text: string, needles: Map<string, Label>): number[] {
  const marks = new Uint8Array(text.length);
  const ordered = [...needles].sort((a, b) => b[0].length - a[0].length);
  for (const [needle, label] of ordered) {
    for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) {
      for (let i = at; i < at + needle.length; i++) if (marks[i] === 0) marks[i] = LABELS[label];
    }
  }
  for (let i = 1; i < text.length; i++)
    if (marks[i] === 0 && /\s/.test(text[i] as string)) marks[i] = marks[i - 1] ?? 0;
  const counts = [0, 0, 0, 0];
  for (const mark of marks) counts[mark] = (counts[mark] ?? 0) + 1;
  return counts;
}

/** The overhead of several runs together: their parts summed, and agency's share of the sum. */
export function sumOverheads(all: readonly Overhead[]): Overhead {
  const parts: TranscriptParts = { framework: 0, brief: 0, tools: 0, content: 0 };
  for (const overhead of all) for (const name of NAMES) parts[name] += overhead.parts[name];
  const transcriptTokens = NAMES.reduce((sum, name) => sum + parts[name], 0);
  return { parts, transcriptTokens, share: transcriptTokens === 0 ? 0 : parts.framework / transcriptTokens };
}
