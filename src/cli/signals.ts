import type { Output } from './render.ts';

/**
 * Ctrl-C (or SIGTERM) calls `stop` once, after writing `notice`; a second one quits at once with code 130. Returns
 * a function that removes the handlers.
 */
export function stopOnSignals(out: Output, notice: string, stop: () => void): () => void {
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    out.write(notice);
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}

/** What a run's first Ctrl-C prints: it stops at the next step boundary, and `resume` continues it. */
export function runStopNotice(resume = 'agency resume'): string {
  return `\nStopping (press Ctrl-C again to quit at once; \`${resume}\` continues the run)…\n`;
}
