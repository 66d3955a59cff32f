import { useState } from 'preact/hooks';
import type { EventFrame } from '../../api/types.ts';
import { eventTone } from '../../lib/event-tone.ts';
import { formatClock } from '../../lib/format.ts';
import { EventDetails } from './event-details.tsx';

/** One journal frame: seq, time, type and message; a click shows the rest. */
export function TimelineEntry({ frame }: { frame: EventFrame }) {
  const [open, setOpen] = useState(false);
  const tone = eventTone(frame.type);
  return (
    <li
      class={`tl-entry tl-${tone}${open ? ' tl-open' : ''}`}
      data-testid="timeline-entry"
      data-seq={frame.seq}
      data-type={frame.type}
    >
      <span class="tl-dot" aria-hidden="true" />
      <button
        type="button"
        class="tl-line"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
        data-testid={`timeline-toggle-${frame.seq}`}
      >
        <span class="tl-seq mono">#{frame.seq}</span>
        <span class="tl-time mono">{formatClock(frame.ts)}</span>
        <span class={`tl-type badge badge-${tone}`}>{frame.type}</span>
        <span class="tl-message">{frame.message ?? frame.error?.message ?? ''}</span>
        {frame.step ? <span class="tl-step mono">{frame.step}</span> : null}
      </button>
      {open ? <EventDetails frame={frame} /> : null}
    </li>
  );
}
