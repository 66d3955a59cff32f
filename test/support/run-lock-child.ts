// A process racing for one run lock, for the run lock tests: `node run-lock-child.ts <lock> <log> <rounds>` takes the
// lock `rounds` times; while holding it, appends "enter <pid>" and "exit <pid>" to <log> with a pause between, so two
// holders at once would interleave their lines.
import { appendFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { AgencyError } from '../../src/core/errors.ts';
import { acquireRunLock } from '../../src/task/lock.ts';

const [lockPath, log, rounds] = process.argv.slice(2) as [string, string, string];
for (let round = 0; round < Number(rounds);) {
  try {
    const lock = await acquireRunLock(lockPath);
    await appendFile(log, `enter ${process.pid}\n`);
    await delay(2);
    await appendFile(log, `exit ${process.pid}\n`);
    await lock.release();
    round++;
  } catch (error) {
    if (!AgencyError.isInstance(error) || error.code !== 'task_locked') throw error;
    await delay(1);
  }
}
