// The race both lock children run: take a lock `rounds` times; while holding it, append "enter <pid>" and
// "exit <pid>" to `log` with a pause between, so two holders at once would interleave their lines. A refusal with
// `busy` (the lock is held) is tried again; any other error ends the process.
import { appendFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { AgencyError } from '../../src/core/errors.ts';

export async function raceForLock(
  take: () => Promise<{ release(): Promise<void> }>,
  busy: string,
  log: string,
  rounds: number,
): Promise<void> {
  for (let round = 0; round < rounds;) {
    try {
      const lock = await take();
      await appendFile(log, `enter ${process.pid}\n`);
      await delay(2);
      await appendFile(log, `exit ${process.pid}\n`);
      await lock.release();
      round++;
    } catch (error) {
      if (!AgencyError.isInstance(error) || error.code !== busy) throw error;
      await delay(1);
    }
  }
}
