/**
 * The scripted conversation every framework runs: `steps` turns in which the model calls the `echo` tool once, then a
 * final answer. One script object is shared by the model adapters of all frameworks, so the model's own work per call
 * is the same everywhere: decrement a counter and return a tool call or the answer.
 */

/** The user's input and the model's final answer. */
export const INPUT = 'Run the loop.';
export const ANSWER = 'done';
export const TOOL_NAME = 'echo';
export const TOOL_DESCRIPTION = 'Returns its input';

/** What the model says on one call. */
export type Turn = { kind: 'tool'; callId: string; args: string } | { kind: 'final'; text: string };

export type Script = {
  /** Model calls made since the last reset. */
  calls: number;
  /** Tool executions since the last reset. */
  toolRuns: number;
  /** Starts a run of `steps` tool calls followed by the answer. */
  reset(steps: number): void;
  /** The model's next turn. */
  next(): Turn;
  /** The tool's body: the echo of `text`, padded to `resultBytes` when that is set. */
  tool(text: string): string;
};

/** @param resultBytes when above 0, every tool result is a fresh, flat string of this many bytes. */
export function createScript(resultBytes = 0): Script {
  let remaining = 0;
  // Built from bytes rather than with padEnd or repeat, which V8 answers with ropes that share their filler: a 2 KB
  // result would then occupy about 550 bytes and flatter whoever keeps it unflattened.
  const filler = Buffer.alloc(resultBytes, '.');
  const script: Script = {
    calls: 0,
    toolRuns: 0,
    reset(steps) {
      remaining = steps;
      script.calls = 0;
      script.toolRuns = 0;
    },
    next() {
      const n = script.calls++;
      if (remaining === 0) return { kind: 'final', text: ANSWER };
      remaining--;
      return { kind: 'tool', callId: `call_${n}`, args: `{"text":"step ${n}"}` };
    },
    tool(text) {
      script.toolRuns++;
      if (resultBytes === 0) return text;
      const bytes = Buffer.from(filler);
      bytes.write(text, 'latin1');
      return bytes.toString('latin1');
    },
  };
  return script;
}

/**
 * The bytes of the transcript a run of `steps` produces, counted once for every framework: the input, each tool
 * call's JSON arguments and its result, and the answer. Framework wrappers (ids, roles, metadata) are not counted.
 */
export function transcriptBytes(steps: number, resultBytes: number): number {
  let total = INPUT.length + ANSWER.length;
  for (let n = 0; n < steps; n++) {
    const args = `{"text":"step ${n}"}`;
    total += args.length + Math.max(resultBytes, `step ${n}`.length);
  }
  return total;
}

/** Throws unless the last run made exactly `steps` tool calls and one more model call for the answer. */
export function checkRun(script: Script, steps: number, framework: string): void {
  if (script.toolRuns !== steps || script.calls !== steps + 1) {
    throw new Error(
      `${framework}: expected ${steps} tool runs and ${steps + 1} model calls, got ${script.toolRuns} and ${script.calls}`,
    );
  }
}
