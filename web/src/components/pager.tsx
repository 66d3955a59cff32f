/** Previous and next for a paginated list; its test ids start with `testId` (`tasks-prev`, `tasks-next`, …). */
export function Pager({
  page,
  hasPrevious,
  hasNext,
  onPrevious,
  onNext,
  testId = 'tasks',
}: {
  page: number;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  testId?: string;
}) {
  if (!hasPrevious && !hasNext) return null;
  return (
    <div class="pager">
      <span class="muted small" data-testid={`${testId}-page-number`}>
        Page {page}
      </span>
      <div class="btn-group">
        <button
          type="button"
          class="btn btn-sm"
          disabled={!hasPrevious}
          onClick={onPrevious}
          data-testid={`${testId}-prev`}
        >
          ‹ Newer
        </button>
        <button type="button" class="btn btn-sm" disabled={!hasNext} onClick={onNext} data-testid={`${testId}-next`}>
          Older ›
        </button>
      </div>
    </div>
  );
}
