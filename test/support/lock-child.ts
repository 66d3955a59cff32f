// A process that takes workspace locks, for the lock tests: `node lock-child.ts <locks dir> <workdir> <mode> …`.
//   race <log> <rounds>   takes the lock `rounds` times; while holding it, appends "enter <pid>" and "exit <pid>" to
//                         <log> with a pause between, so two holders at once would interleave their lines
//   hold [task json]      takes the lock (attaching the task, if given), prints "held", and waits to be killed
import { appendFile } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { AgencyError } from '../../src/core/errors.ts';
import { createWorkspaceLocks } from '../../src/fleet/directors/workspace-lock.ts';

const [dir, workdir, mode, ...rest] = process.argv.slice(2) as [string, string, string, ...string[]];
const locks = createWorkspaceLocks({ dir, director: `child-${process.pid}`, taskRunning: async () => false });

if (mode === 'race') {
  const [log, rounds] = rest as [string, string];
  for (let round = 0; round < Number(rounds);) {
    try {
      const lock = await locks.acquire(workdir, { purpose: 'race' });
      await appendFile(log, `enter ${process.pid}\n`);
      await delay(2);
      await appendFile(log, `exit ${process.pid}\n`);
      await lock.release();
      round++;
    } catch (error) {
      if (!AgencyError.isInstance(error) || error.code !== 'workspace_locked') throw error;
      await delay(1);
    }
  }
} else {
  const lock = await locks.acquire(workdir, { purpose: 'hold' });
  if (rest[0]) await lock.attach(JSON.parse(rest[0]) as Parameters<typeof lock.attach>[0]);
  process.stdout.write('held\n');
  setInterval(() => undefined, 60_000);
}
