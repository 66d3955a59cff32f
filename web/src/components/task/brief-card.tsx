import type { TaskDetail } from '../../api/types.ts';
import { Card } from '../card.tsx';

/** The brief the task was given, and the files under its task/ folder. */
export function BriefCard({ task }: { task: TaskDetail }) {
  return (
    <Card title="Brief" testId="brief">
      <div class="brief-text">{task.brief || <span class="muted">No brief.</span>}</div>
      {task.files.length > 0 ? (
        <div class="brief-files">
          <span class="label">Files</span>
          <ul class="file-list">
            {task.files.map((file) => (
              <li key={file} class="mono small">
                {file}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </Card>
  );
}
