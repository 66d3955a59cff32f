// A process racing for one run lock, for the run lock tests: `node run-lock-child.ts <lock> <log> <rounds>` (the
// race: test/support/lock-race.ts).
import { acquireRunLock } from '../../src/task/lock.ts';
import { raceForLock } from './lock-race.ts';

const [lockPath, log, rounds] = process.argv.slice(2) as [string, string, string];
await raceForLock(() => acquireRunLock(lockPath), 'task_locked', log, Number(rounds));
