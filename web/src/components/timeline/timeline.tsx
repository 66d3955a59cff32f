import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { StreamState } from '../../api/event-stream.ts';
import type { EventFrame } from '../../api/types.ts';
import { isQuietEvent } from '../../lib/event-tone.ts';
import { Card } from '../card.tsx';
import { EmptyState } from '../empty-state.tsx';
import { StreamIndicator } from './stream-indicator.tsx';
import { timelineTree } from '../../lib/timeline-tree.ts';
import { TimelineNodes } from './timeline-group.tsx';

// A long run journals thousands of frames; the newest are what a reader follows.
const SHOWN = 400;

/**
 * The run's live event timeline; it follows new frames while scrolled to the bottom. A workflow's steps and a
 * network's delegations are nested, each a group that folds.
 */
export function Timeline({ frames, state }: { frames: readonly EventFrame[]; state: StreamState }) {
  const [quiet, setQuiet] = useState(false);
  const [all, setAll] = useState(false);
  const list = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  const visible = quiet ? frames : frames.filter((frame) => !isQuietEvent(frame.type));
  const shown = all ? visible : visible.slice(-SHOWN);

  useEffect(() => {
    const element = list.current;
    if (!element) return;
    const track = (): void => {
      pinned.current = element.scrollHeight - element.scrollTop - element.clientHeight < 40;
    };
    element.addEventListener('scroll', track, { passive: true });
    return () => element.removeEventListener('scroll', track);
  }, []);
  useLayoutEffect(() => {
    const element = list.current;
    if (element && pinned.current) element.scrollTop = element.scrollHeight;
  }, [shown.length, shown[shown.length - 1]?.seq]);

  const actions = (
    <div class="timeline-actions">
      <label class="switch small">
        <input
          type="checkbox"
          checked={quiet}
          onChange={(event) => setQuiet(event.currentTarget.checked)}
          data-testid="timeline-show-quiet"
        />
        usage &amp; checkpoints
      </label>
      <StreamIndicator state={state} />
    </div>
  );
  return (
    <Card
      title="Events"
      subtitle={`${frames.length} frame${frames.length === 1 ? '' : 's'}`}
      actions={actions}
      flush
      testId="timeline"
    >
      <div class="timeline-scroll" ref={list}>
        {visible.length > shown.length ? (
          <button
            type="button"
            class="btn btn-sm btn-ghost timeline-more"
            onClick={() => setAll(true)}
            data-testid="timeline-show-all"
          >
            Show {visible.length - shown.length} earlier events
          </button>
        ) : null}
        {frames.length === 0 ? (
          <EmptyState title={state === 'ended' ? 'No events' : 'Waiting for events…'}>
            Frames appear here as the run journals them.
          </EmptyState>
        ) : (
          <ol
            class="tl"
            data-testid="timeline-list"
            data-frames={frames.length}
            data-last-seq={frames[frames.length - 1]?.seq ?? 0}
          >
            <TimelineNodes nodes={timelineTree(shown)} />
          </ol>
        )}
      </div>
    </Card>
  );
}
