import type { ComponentChildren } from 'preact';

/** What a list shows when it has nothing to show. */
export function EmptyState({
  title,
  children,
  testId,
}: {
  title: string;
  children?: ComponentChildren;
  testId?: string;
}) {
  return (
    <div class="empty" data-testid={testId}>
      <div class="empty-title">{title}</div>
      {children !== undefined ? <div class="empty-text">{children}</div> : null}
    </div>
  );
}
