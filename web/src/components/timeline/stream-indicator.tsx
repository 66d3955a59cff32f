import type { StreamState } from '../../api/event-stream.ts';

const LABELS: Record<StreamState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  ended: 'Run finished',
};

/** Where the event stream is; "Reconnecting…" stays visible for as long as the connection is down. */
export function StreamIndicator({ state }: { state: StreamState }) {
  return (
    <span
      class={`stream stream-${state}`}
      role="status"
      aria-live="polite"
      data-testid="stream-state"
      data-state={state}
    >
      <span class="stream-dot" aria-hidden="true" />
      {state === 'reconnecting' ? <span data-testid="reconnecting">{LABELS[state]}</span> : LABELS[state]}
    </span>
  );
}
