import { useEffect, useState } from 'preact/hooks';

const listeners = new Set<() => void>();

/** Goes to a path inside the dashboard without reloading the page. */
export function navigate(to: string, { replace = false }: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

/** The current path and query, updated on navigation and on the browser's back and forward buttons. */
export function useLocation(): { pathname: string; search: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const update = (): void => setTick((tick) => tick + 1);
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return { pathname: location.pathname, search: new URLSearchParams(location.search) };
}
