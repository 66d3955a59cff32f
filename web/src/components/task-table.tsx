import type { TaskSummary } from '../api/types.ts';
import { TaskRow } from './task-row.tsx';

/** The task list as a table; columns of lesser weight drop out on narrow screens. */
export function TaskTable({ tasks, now }: { tasks: readonly TaskSummary[]; now: number }) {
  return (
    <div class="table-wrap">
      <table class="table" data-testid="task-table">
        <thead>
          <tr>
            <th>Task</th>
            <th>Status</th>
            <th class="hide-sm">Phase</th>
            <th class="hide-md">Model</th>
            <th class="num">Tokens</th>
            <th class="num hide-sm">Cost</th>
            <th class="num hide-sm">Time</th>
            <th>Age</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <TaskRow key={task.id} task={task} now={now} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
