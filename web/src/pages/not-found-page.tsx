import { EmptyState } from '../components/empty-state.tsx';
import { Link } from '../components/link.tsx';

/** A path the dashboard does not know. */
export function NotFoundPage({ path }: { path: string }) {
  return (
    <div class="page card" data-testid="not-found-page">
      <EmptyState title="Page not found">
        <code class="mono">{path}</code> is not a page of the dashboard. <Link href="/">Back to the tasks</Link>.
      </EmptyState>
    </div>
  );
}
