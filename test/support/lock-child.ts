// A process that takes workspace locks, for the lock tests: `node lock-child.ts <locks dir> <workdir> <mode> …`.
//   race <log> <rounds>   races for the lock `rounds` times (test/support/lock-race.ts)
//   hold [task json]      takes the lock (attaching the task, if given), prints "held", and waits to be killed
import { createWorkspaceLocks } from '../../src/fleet/directors/workspace-lock.ts';
import { raceForLock } from './lock-race.ts';

const [dir, workdir, mode, ...rest] = process.argv.slice(2) as [string, string, string, ...string[]];
const locks = createWorkspaceLocks({ dir, director: `child-${process.pid}`, taskRunning: async () => false });

if (mode === 'race') {
  const [log, rounds] = rest as [string, string];
  await raceForLock(() => locks.acquire(workdir, { purpose: 'race' }), 'workspace_locked', log, Number(rounds));
} else {
  const lock = await locks.acquire(workdir, { purpose: 'hold' });
  if (rest[0]) await lock.attach(JSON.parse(rest[0]) as Parameters<typeof lock.attach>[0]);
  process.stdout.write('held\n');
  setInterval(() => undefined, 60_000);
}
