/** A success line that confirms what was just done. */
export function Notice({ message, testId = 'notice' }: { message: string | undefined; testId?: string }) {
  if (!message) return null;
  return (
    <div class="alert alert-success" role="status" data-testid={testId}>
      <svg class="alert-icon" viewBox="0 0 24 24" aria-hidden="true">
        <circle cx="12" cy="12" r="9" />
        <path d="m8.5 12.5 2.5 2.5 4.5-5" />
      </svg>
      <div class="alert-text">{message}</div>
    </div>
  );
}
