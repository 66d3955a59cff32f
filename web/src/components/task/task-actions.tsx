import { useState } from 'preact/hooks';
import { messageOf } from '../../api/api-error.ts';
import { api } from '../../api/client.ts';
import type { TaskStatus } from '../../api/types.ts';
import { EMPTY_BUDGETS, parseBudgets } from '../../lib/budget-inputs.ts';
import { canResume, canStop } from '../../lib/status.ts';
import { BudgetFields } from '../form/budget-fields.tsx';

type TaskActionsProps = {
  taskId: string;
  status: TaskStatus;
  /** Told the server's answer, to show it and to follow the task again. */
  onDone: (message: string, action: 'stop' | 'resume') => void;
  onError: (message: string) => void;
};

/** Stop a task that runs; resume one that stopped, optionally with more budget. */
export function TaskActions({ taskId, status, onDone, onError }: TaskActionsProps) {
  const [busy, setBusy] = useState<'stop' | 'resume' | undefined>(undefined);
  const [raise, setRaise] = useState(false);
  const [inputs, setInputs] = useState(EMPTY_BUDGETS);
  const parsed = parseBudgets(inputs);

  const run = async (action: 'stop' | 'resume'): Promise<void> => {
    setBusy(action);
    try {
      const answer =
        action === 'stop' ? await api.stop(taskId) : await api.resume(taskId, raise ? parsed.budgets : undefined);
      setRaise(false);
      onDone(answer.message, action);
    } catch (failure) {
      onError(messageOf(failure));
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <div class="task-actions">
      <div class="btn-list">
        {canResume(status) ? (
          <>
            <button
              type="button"
              class="btn btn-ghost"
              onClick={() => setRaise(!raise)}
              data-testid="task-resume-budgets"
            >
              {raise ? 'Keep budgets' : 'More budget…'}
            </button>
            <button
              type="button"
              class="btn btn-primary"
              disabled={busy !== undefined || Object.keys(parsed.errors).length > 0}
              onClick={() => void run('resume')}
              data-testid="task-resume"
            >
              {busy === 'resume' ? 'Resuming…' : 'Resume'}
            </button>
          </>
        ) : null}
        <button
          type="button"
          class="btn btn-danger-outline"
          disabled={!canStop(status) || busy !== undefined}
          title={canStop(status) ? 'Stop the run at its next step boundary' : 'The task is not running'}
          onClick={() => void run('stop')}
          data-testid="task-stop"
        >
          {busy === 'stop' ? 'Stopping…' : 'Stop'}
        </button>
      </div>
      {raise && canResume(status) ? (
        <div class="resume-budgets card" data-testid="task-resume-form">
          <div class="card-body">
            <p class="small muted">Raise any budget for the rest of the run; empty fields keep their limit.</p>
            <BudgetFields values={inputs} errors={parsed.errors} onChange={setInputs} testIdPrefix="resume-" />
          </div>
        </div>
      ) : null}
    </div>
  );
}
