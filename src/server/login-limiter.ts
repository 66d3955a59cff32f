import type { LoginLimiter } from './auth-routes.ts';

/** Failed logins per client address: ten in a minute, then 429 until the minute is over. */
export function loginLimiter(now: () => number): LoginLimiter {
  const failures = new Map<string, { count: number; since: number }>();
  return {
    allowed(address) {
      const entry = failures.get(address);
      if (!entry || now() - entry.since > 60_000) return true;
      return entry.count < 10;
    },
    failed(address) {
      const entry = failures.get(address);
      if (!entry || now() - entry.since > 60_000) failures.set(address, { count: 1, since: now() });
      else entry.count++;
      if (failures.size > 10_000) failures.clear();
    },
  };
}
