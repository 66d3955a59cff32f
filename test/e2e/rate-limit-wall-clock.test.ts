import { describe, expect, it } from 'vitest';
import { createRunner } from '../../src/task/runner.ts';
import { startFaultServer } from '../support/fault-server.ts';
import { makeTaskFolder } from '../support/governed-fixture.ts';

// The runner tells the model layer how much of its wall-clock budget is left, so a rate limit that asks for longer
// fails the run at once with the server's retry-after, instead of waiting into a budget stop (or failing silently).

describe('a governed run throttled by its model', () => {
  it("bounds a rate limit's retry-after by the run's wall-clock budget, and says so", async () => {
    const throttle = {
      kind: 'status' as const,
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '90' },
      body: JSON.stringify({ error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }),
    };
    const server = await startFaultServer([throttle]);
    try {
      const root = await makeTaskFolder();
      const started = Date.now();
      const runner = createRunner({ model: `openai-compatible:${server.url}#llama-3.1-8b`, approvals: 'auto' });
      const result = await runner.doTask(root, { budgets: { maxWallClockMs: 30_000 } });
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(result.finishReason).toBe('error');
      expect(result.error?.message).toContain('The server asked to retry after 90 s (retry-after, at ');
      expect(result.error?.message).toMatch(/only \d+(\.\d)? s are left of the caller's time limit/);
      expect(server.requests()).toBe(1);
    } finally {
      await server.close();
    }
  });
});
