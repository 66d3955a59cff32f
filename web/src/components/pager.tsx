/** Previous and next for a cursor-paginated list. */
export function Pager({
  page,
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
}: {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
}) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <div class="pager">
      <span class="muted small" data-testid="tasks-page-number">
        Page {page}
      </span>
      <div class="btn-group">
        <button type="button" class="btn btn-sm" disabled={!hasPrevious} onClick={onPrevious} data-testid="tasks-prev">
          ‹ Newer
        </button>
        <button type="button" class="btn btn-sm" disabled={!hasNext} onClick={onNext} data-testid="tasks-next">
          Older ›
        </button>
      </div>
    </div>
  );
}
