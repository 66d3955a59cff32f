import { useEffect, useState } from 'preact/hooks';

/** The time, refreshed every `everyMs`, so ages like "3 min ago" stay true on a page left open. */
export function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
