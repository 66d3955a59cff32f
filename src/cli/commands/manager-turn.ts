// `agency manager-turn <root>`: one turn of the manager director's session, run by the manager's executor as a
// child process inside the sandbox (src/fleet/executors/manager/). It reads its job from stdin, runs the governed
// run with the delegation tools under agency run's rules, and leaves everything in the turn's journal. SIGTERM
// stops the run as cancelled (the executor, outside the sandbox, then cancels its delegations).
import { errorMessage } from '../../core/errors.ts';
import { parseManagerJob } from '../../fleet/executors/manager/manager-job.ts';
import { runManagerJob } from '../../fleet/executors/manager/manager-run.ts';
import { EXIT } from '../exit-codes.ts';
import type { Output } from '../render.ts';
import { operatorGovernance } from '../run-governance.ts';

/** Runs the job on stdin; exit 0 once the run ended (its journal says how), 1 when it could not run, 2 for bad input. */
export async function managerTurnCommand(root: string, err: Output): Promise<number> {
  let job;
  try {
    job = parseManagerJob(await readStdin());
  } catch (error) {
    err.write(`${errorMessage(error)}\n`);
    return EXIT.usage;
  }
  if (job.root !== root) {
    err.write(`agency manager-turn: the job is for ${job.root}, not ${root}\n`);
    return EXIT.usage;
  }
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await runManagerJob(job, {
      governance: operatorGovernance,
      env: process.env,
      signal: stopping.signal,
    });
    return EXIT.ok;
  } catch (error) {
    err.write(`The manager's governed run failed: ${errorMessage(error)}\n`);
    return EXIT.failed;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
