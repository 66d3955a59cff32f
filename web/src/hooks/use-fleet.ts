import { useEffect, useState } from 'preact/hooks';
import { FLEET_EVENTS_URL, fleetApi } from '../api/client.ts';
import type { StreamState } from '../api/event-stream.ts';
import type { FleetView } from '../api/types.ts';

const CLOSED = 2;

/**
 * The fleet, live from the server's feed: the whole fleet at once, then again on every change, so the page never
 * polls a worker itself. While the browser retries a dropped feed the state is `reconnecting`; when it gives up (the
 * server refused or restarted), the fleet is fetched once (a 401 shows the login page) and the feed reopened.
 */
export function useFleet(): { fleet: FleetView | undefined; state: StreamState } {
  const [fleet, setFleet] = useState<FleetView | undefined>(undefined);
  const [state, setState] = useState<StreamState>('connecting');
  useEffect(() => {
    let source: EventSource | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let closed = false;
    const open = (): void => {
      const current = new EventSource(FLEET_EVENTS_URL);
      source = current;
      current.onopen = () => setState('live');
      current.addEventListener('fleet', (event) => {
        try {
          setFleet(JSON.parse((event as MessageEvent<string>).data) as FleetView);
        } catch {
          // A malformed event is skipped; the next one carries the whole fleet again.
        }
      });
      current.onerror = () => {
        if (closed || source !== current) return;
        setState('reconnecting');
        if (current.readyState !== CLOSED) return;
        current.close();
        fleetApi.list().then(setFleet, () => undefined);
        timer = setTimeout(open, 2_000);
      };
    };
    open();
    return () => {
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      source?.close();
    };
  }, []);
  return { fleet, state };
}
