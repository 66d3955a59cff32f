import type { Output } from './render.ts';

/**
 * The first Ctrl-C (or SIGTERM) asks the run to stop at its next step boundary; a second one quits at once with 130.
 * `resume` is the command that continues the run, as the notice names it. Returns a remover.
 */
export function stopOnSignals(out: Output, stop: () => void, resume = 'agency resume'): () => void {
  let interrupts = 0;
  const onSignal = () => {
    interrupts++;
    if (interrupts > 1) process.exit(130);
    out.write(`\nStopping (press Ctrl-C again to quit at once; \`${resume}\` continues the run)…\n`);
    stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
