import { styleText } from 'node:util';
import type { EventFrame } from '../task/contracts/events.ts';
import type { DoTaskResult } from '../task/result.ts';

/**
 * Where the CLI writes. A TTY gets a live status line; `colors` (a TTY whose terminal has colours and no
 * `NO_COLOR`, as `tty.WriteStream#hasColors` decides) gets colours.
 */
export type Output = { write(text: string): void; isTTY: boolean; colors?: boolean; columns?: number };

/** The colours the CLI uses. */
export type Colour = 'red' | 'green' | 'yellow' | 'cyan' | 'dim' | 'bold';

/** `text` in `colour` where `out` takes colours (node:util `styleText`); as it is elsewhere. */
export function paint(out: Output, colour: Colour, text: string): string {
  return out.colors === true ? styleText(colour, text, { validateStream: false }) : text;
}

function colourOf(frame: EventFrame): Colour | undefined {
  if (
    frame.type === 'error' ||
    frame.type === 'verify.fail' ||
    frame.type === 'tool.blocked' ||
    frame.type === 'approval.invalid'
  )
    return 'red';
  if (frame.type === 'verify.pass' || (frame.type === 'finish' && frame.data?.reason === 'completed')) return 'green';
  if (
    frame.type.startsWith('approval.') ||
    frame.type === 'budget.hit' ||
    frame.type === 'warning' ||
    frame.type === 'plan.changed'
  )
    return 'yellow';
  if (frame.type === 'phase.start' || frame.type === 'plan.proposed') return 'cyan';
  return undefined;
}

/** One readable line for a journal frame: time, seq, type, step, message. */
export function formatFrame(frame: EventFrame, out: Output): string {
  const time = frame.ts.slice(11, 19);
  const step = frame.step ? frame.step.padEnd(22) : ''.padEnd(22);
  const message = frame.message ?? (frame.error ? `${frame.error.code}: ${frame.error.message}` : '');
  const type = frame.type.padEnd(18);
  const colour = colourOf(frame);
  return `${paint(out, 'dim', `${time} #${String(frame.seq).padStart(4)}`)} ${colour ? paint(out, colour, type) : type} ${paint(out, 'dim', step)} ${message}`;
}

/** The live view of a run: event lines, a status line on a TTY, and the exact command to approve a pending request. */
export function createProgressView(
  out: Output,
  root: string,
  budget: { maxCostUsd?: number; maxTotalTokens?: number },
  {
    approvalsByHand = true,
    decideCommand = (verb, id) => `agency ${verb} ${root} ${id}`,
  }: {
    approvalsByHand?: boolean;
    /** The command that decides a request, as printed. @default `agency approve|deny <root> <id>` */
    decideCommand?: (verb: 'approve' | 'deny', id: string) => string;
  } = {},
) {
  let phase = 'init';
  let step = '';
  let tokens = 0;
  let cost: number | null = 0;
  let pending: string | undefined;
  let statusShown = false;

  const status = () => {
    const costText =
      cost === null ? 'cost unknown' : `$${cost.toFixed(4)}${budget.maxCostUsd ? ` / $${budget.maxCostUsd}` : ''}`;
    const tokenText = `${tokens.toLocaleString('en-US')}${budget.maxTotalTokens ? ` / ${budget.maxTotalTokens.toLocaleString('en-US')}` : ''} tokens`;
    const waiting = pending ? ` · waiting for approval ${pending}` : '';
    return `[${phase}] ${step} · ${tokenText} · ${costText}${waiting}`;
  };
  const clearStatus = () => {
    if (out.isTTY && statusShown) out.write('\r\x1b[K');
    statusShown = false;
  };
  const drawStatus = () => {
    if (!out.isTTY) return;
    out.write(paint(out, 'bold', status().slice(0, (out.columns ?? 120) - 1)));
    statusShown = true;
  };

  return {
    onFrame(frame: EventFrame) {
      clearStatus();
      if (frame.type === 'phase.start' && typeof frame.data?.phase === 'string') phase = frame.data.phase;
      if (frame.step) step = frame.step;
      if (frame.usage_delta) {
        tokens += frame.usage_delta.total_tokens;
        cost = cost === null || frame.usage_delta.cost_usd === null ? null : cost + frame.usage_delta.cost_usd;
      }
      out.write(`${formatFrame(frame, out)}\n`);
      if (frame.type === 'approval.requested' && approvalsByHand) {
        const id = String(frame.data?.id);
        pending = id;
        out.write(
          paint(
            out,
            'yellow',
            `  → waiting for a decision. Approve: ${decideCommand('approve', id)}   Deny: ${decideCommand('deny', id)}\n`,
          ),
        );
      }
      if (frame.type === 'approval.decided') pending = undefined;
      drawStatus();
    },
    close() {
      clearStatus();
    },
  };
}

/** A short human summary of a finished run. */
export function formatResult(result: DoTaskResult, out: Output): string {
  const lines = [
    '',
    `${paint(out, result.finishReason === 'completed' ? 'green' : 'red', `Finished: ${result.finishReason}`)}${result.verified === undefined ? '' : result.verified ? ' (verified)' : ' (not verified)'}`,
    `Task:      ${result.taskId}`,
    `Usage:     ${result.usage.totalTokens.toLocaleString('en-US')} tokens${result.usage.costUsd === undefined ? '' : `, $${result.usage.costUsd.toFixed(6)}`}`,
  ];
  if (result.error) lines.push(`Error:     ${result.error.code}: ${result.error.message}`);
  for (const [index, file] of (result.deliverables ?? []).entries()) {
    lines.push(
      `${index === 0 ? 'Delivered:' : '          '} ${file.path} (${file.size} bytes, sha256 ${file.sha256.slice(0, 12)}…)`,
    );
  }
  if (result.outputText) lines.push('', result.outputText.trim());
  lines.push('', `Paper trail: ${result.progressDir}  (events.ndjson, state.json, plan/, approvals/, verify/, steps/)`);
  return `${lines.join('\n')}\n`;
}
