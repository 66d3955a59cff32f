import { invalidAnswer } from '../api/answer-errors.ts';
import { type FleetView, fleetSchema } from '../api/fleet-schemas.ts';
import type { WatchFleetOptions } from './client-types.ts';
import { END, eventJson, followSse, type SseEvent } from './follow-sse.ts';
import { askedServer, type Transport } from './transport.ts';

/**
 * The fleet's event stream as snapshots: each `fleet` event is the whole fleet, so a reconnected stream starts over
 * with the fleet as it is then, and nothing needs resuming. It never ends on its own: break, or abort `signal`.
 */
export function watchFleet(transport: Transport, path: string, options: WatchFleetOptions = {}) {
  return followSse<FleetView>(transport, path, {
    signal: options.signal,
    reconnect: options.reconnect,
    parse: fleetOf,
    closed: 'the fleet stream closed',
    ...(options.onReconnect ? { onReconnect: options.onReconnect } : {}),
  });
}

function fleetOf(event: SseEvent, what: string, status: number): FleetView | typeof END {
  const parsed = fleetSchema.safeParse(eventJson(event, what, status));
  if (!parsed.success)
    throw invalidAnswer(askedServer(what), status, `a ${event.event} event: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
