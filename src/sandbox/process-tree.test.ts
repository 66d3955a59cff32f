import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { descendantPids, descendantsOf } from './process-tree.ts';

describe('descendantPids', () => {
  it('finds the same processes as a full /proc scan, children and grandchildren', async () => {
    const child = spawn('sh', ['-c', 'sh -c "sleep 5 & wait" & sleep 5 & wait'], { stdio: 'ignore' });
    try {
      const pid = child.pid ?? 0;
      await expect.poll(() => descendantsOf(pid).length, { timeout: 2000 }).toBe(3); // the inner sh, its sleep, and the outer sleep
      expect(descendantPids(pid).sort()).toEqual(
        descendantsOf(pid)
          .map((process_) => process_.pid)
          .sort(),
      );
    } finally {
      for (const pid of descendantsOf(child.pid ?? 0)) process.kill(pid.pid, 'SIGKILL');
      child.kill('SIGKILL');
    }
  });
});
