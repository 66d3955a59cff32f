import type { EventFrame } from '../../api/types.ts';
import { formatCost, formatTokens } from '../../lib/format.ts';
import { JsonBlock } from '../json-block.tsx';

/** The parts of a frame beyond its message: error, usage, budgets left, and its data as JSON. */
export function EventDetails({ frame }: { frame: EventFrame }) {
  return (
    <div class="event-details">
      {frame.error ? (
        <div class="event-error">
          <code class="mono">{frame.error.code}</code> {frame.error.message}
        </div>
      ) : null}
      {frame.usage_delta ? (
        <div class="small muted">
          {formatTokens(frame.usage_delta.input_tokens)} in · {formatTokens(frame.usage_delta.output_tokens)} out ·{' '}
          {formatCost(frame.usage_delta.cost_usd)}
        </div>
      ) : null}
      <JsonBlock
        value={{
          id: frame.id,
          ts: frame.ts,
          step: frame.step,
          step_kind: frame.step_kind,
          data: frame.data,
          budgets_remaining: frame.budgets_remaining,
        }}
      />
    </div>
  );
}
