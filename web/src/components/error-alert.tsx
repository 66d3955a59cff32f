/** A refusal or failure, in the server's own words, with an optional retry. */
export function ErrorAlert({
  message,
  onRetry,
  testId = 'error-message',
}: {
  message: string | undefined;
  onRetry?: () => void;
  testId?: string;
}) {
  if (!message) return null;
  return (
    <div class="alert alert-danger" role="alert" data-testid={testId}>
      <svg class="alert-icon" viewBox="0 0 24 24" aria-hidden="true">
        <circle cx="12" cy="12" r="9" />
        <path d="M12 8v4M12 16h.01" />
      </svg>
      <div class="alert-text">{message}</div>
      {onRetry ? (
        <button type="button" class="btn btn-sm btn-ghost" onClick={onRetry} data-testid="error-retry">
          Retry
        </button>
      ) : null}
    </div>
  );
}
