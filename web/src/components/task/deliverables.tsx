import { deliverableUrl } from '../../api/client.ts';
import type { TaskDetail } from '../../api/types.ts';
import { formatBytes } from '../../lib/format.ts';
import { Card } from '../card.tsx';
import { EmptyState } from '../empty-state.tsx';

/** The files the run delivered, each a download. */
export function Deliverables({ taskId, deliverables }: { taskId: string; deliverables: TaskDetail['deliverables'] }) {
  return (
    <Card title="Deliverables" flush testId="deliverables">
      {deliverables.length === 0 ? (
        <EmptyState title="None yet">Files the run delivers appear here.</EmptyState>
      ) : (
        <ul class="list">
          {deliverables.map((item) => (
            <li class="list-item" key={item.path}>
              <div class="file-icon" aria-hidden="true">
                {extensionOf(item.path)}
              </div>
              <div class="list-main">
                <a
                  href={deliverableUrl(taskId, item.path)}
                  download
                  class="list-title"
                  data-testid="deliverable-link"
                  data-path={item.path}
                >
                  {item.title || item.path}
                </a>
                <div class="small muted mono">{item.path}</div>
              </div>
              <div class="small muted nowrap">
                {item.kind} · {formatBytes(item.size)}
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

function extensionOf(path: string): string {
  const dot = path.lastIndexOf('.');
  return dot > path.lastIndexOf('/') ? path.slice(dot + 1, dot + 5).toUpperCase() : 'FILE';
}
