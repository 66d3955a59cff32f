import { useState } from 'preact/hooks';
import { formatDuration, formatTokens } from '../../lib/format.ts';
import type { GroupState, TimelineGroup, TimelineNode } from '../../lib/timeline-tree.ts';
import type { Tone } from '../../lib/tone.ts';
import { TimelineEntry } from './timeline-entry.tsx';

const STATE_TONES: Record<GroupState, Tone> = {
  running: 'blue',
  done: 'green',
  skipped: 'gray',
  failed: 'red',
  suspended: 'orange',
  stopped: 'yellow',
};

/** The timeline's nodes: frames as entries, groups as collapsible entries holding theirs. */
export function TimelineNodes({ nodes }: { nodes: readonly TimelineNode[] }) {
  return (
    <>
      {nodes.map((node) =>
        'frame' in node ? (
          <TimelineEntry key={node.frame.seq} frame={node.frame} />
        ) : (
          <TimelineGroupEntry key={node.group.key} group={node.group} />
        ),
      )}
    </>
  );
}

/** A workflow step's attempt or a network's delegation: a header with its name, state, timing and usage, then its frames. */
export function TimelineGroupEntry({ group }: { group: TimelineGroup }) {
  const [open, setOpen] = useState(true);
  const tone = STATE_TONES[group.state];
  return (
    <li
      class={`tl-entry tl-group tl-group-${group.type} tl-${tone}`}
      data-testid="timeline-group"
      data-group-type={group.type}
      data-label={group.label}
      data-state={group.state}
      data-parallel={group.parallel ? 'true' : 'false'}
    >
      <span class="tl-dot" aria-hidden="true" />
      <button type="button" class="tl-line tl-group-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span class="tl-caret" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
        <span class="tl-type badge badge-azure">{group.type === 'step' ? 'step' : 'agent'}</span>
        <strong class="tl-group-label mono">{group.label}</strong>
        <span class="tl-message muted small">{group.detail}</span>
        {group.parallel ? (
          <span class="badge badge-purple" data-testid="timeline-parallel">
            parallel
          </span>
        ) : null}
        {group.durationMs !== null ? <span class="tl-time mono">{formatDuration(group.durationMs)}</span> : null}
        {group.usage && group.usage.total_tokens > 0 ? (
          <span class="tl-time mono">{formatTokens(group.usage.total_tokens)} tokens</span>
        ) : null}
        <span class={`badge badge-${tone}`}>{group.state}</span>
      </button>
      {open ? (
        <ol class="tl tl-nested" data-testid="timeline-group-children">
          <TimelineNodes nodes={group.children} />
        </ol>
      ) : null}
    </li>
  );
}
