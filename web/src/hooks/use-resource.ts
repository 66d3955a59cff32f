import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { messageOf } from '../api/api-error.ts';

/** A value loaded from the server: the last good data, the last failure's message, and a way to load it again. */
export type Resource<T> = {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
};

/**
 * Loads `load()` when `key` changes, and again every `pollMs` while the page is visible. A slow answer for an old key
 * never overwrites a newer one; a failed reload keeps the last good data and reports the error beside it.
 */
export function useResource<T>(load: () => Promise<T>, key: string, { pollMs }: { pollMs?: number } = {}): Resource<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(0);
  const loader = useRef(load);
  loader.current = load;
  const shownKey = useRef(key);

  useEffect(() => {
    if (shownKey.current !== key) {
      shownKey.current = key;
      setData(undefined);
    }
    const ticket = ++latest.current;
    setLoading(true);
    loader.current().then(
      (value) => {
        if (ticket !== latest.current) return;
        setData(value);
        setError(undefined);
        setLoading(false);
      },
      (failure: unknown) => {
        if (ticket !== latest.current) return;
        setError(messageOf(failure));
        setLoading(false);
      },
    );
  }, [key, generation]);

  useEffect(() => {
    if (!pollMs) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') setGeneration((value) => value + 1);
    }, pollMs);
    return () => clearInterval(timer);
  }, [key, pollMs]);

  const reload = useCallback(() => setGeneration((value) => value + 1), []);
  return { data, error, loading, reload };
}
