// A side effect that survives the process: each run of a wrapped tool appends a line to a ledger file, so a test can
// count how often a tool really ran across a killed run and its resume.
import { appendFileSync, readFileSync } from 'node:fs';
import type { Tool } from '../../src/tools/define-tool.ts';

/**
 * `tools` with each run appending `<tool> <input JSON>` to `file` before the tool does its work; a string output gets
 * ` (ledger line N)` added, so what the model was shown tells which run produced it.
 */
export function withLedger(tools: readonly Tool[], file: string): Tool[] {
  return tools.map((tool) => ({
    ...tool,
    execute: async (input, context) => {
      appendFileSync(file, `${tool.name} ${JSON.stringify(input)}\n`);
      const line = ledgerLines(file).length;
      const output = await tool.execute(input, context);
      return typeof output === 'string' ? `${output} (ledger line ${line})` : output;
    },
  }));
}

/** The ledger's lines; none when it does not exist. */
export function ledgerLines(file: string): string[] {
  try {
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } catch {
    return [];
  }
}

/** The same tools, each named one marked idempotent (safe to run again after a crash). */
export function markIdempotent(tools: readonly Tool[], names: readonly string[]): Tool[] {
  return tools.map((tool) => (names.includes(tool.name) ? { ...tool, idempotent: true } : tool));
}
