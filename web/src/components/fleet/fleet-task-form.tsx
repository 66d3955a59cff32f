import { useState } from 'preact/hooks';
import { messageOf } from '../../api/api-error.ts';
import { fleetApi } from '../../api/client.ts';
import type { FleetTaskRequest } from '../../api/types.ts';
import { ErrorAlert } from '../error-alert.tsx';

type FleetTaskFormProps = {
  worker: string;
  /** The worker's own model, shown as the placeholder. */
  model: string | null;
  /** Why the worker takes no task now; the form is disabled while there is a reason. */
  disabledReason: string | undefined;
  onSubmitted: (taskId: string) => void;
};

const MAX_TIMEOUT = 86_400;

/** A task for one worker: its prompt, and optionally a model and a timeout. Enabled only while the worker is idle. */
export function FleetTaskForm({ worker, model, disabledReason, onSubmitted }: FleetTaskFormProps) {
  const [prompt, setPrompt] = useState('');
  const [modelInput, setModelInput] = useState('');
  const [timeout, setTimeoutInput] = useState('');
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const seconds = timeout.trim() === '' ? undefined : Number(timeout);
  const timeoutProblem =
    seconds === undefined || (Number.isInteger(seconds) && seconds >= 1 && seconds <= MAX_TIMEOUT)
      ? undefined
      : `Whole seconds, 1 to ${MAX_TIMEOUT}.`;
  const disabled = disabledReason !== undefined || sending;

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (disabled || prompt.trim() === '' || timeoutProblem) return;
    setSending(true);
    setError(undefined);
    const request: FleetTaskRequest = { prompt };
    if (modelInput.trim()) request.model = modelInput.trim();
    if (seconds !== undefined) request.timeout_seconds = seconds;
    try {
      const created = await fleetApi.submit(worker, request);
      setPrompt('');
      onSubmitted(created.task_id);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setSending(false);
    }
  };

  return (
    <form class="fleet-form" onSubmit={(event) => void submit(event)} data-testid="fleet-task-form" noValidate>
      <fieldset disabled={disabled} class="fleet-fieldset">
        <label class="field">
          <span class="field-label">Task</span>
          <textarea
            class="input mono-input"
            rows={3}
            value={prompt}
            placeholder={disabledReason ?? 'What should this worker do?'}
            onInput={(event) => setPrompt(event.currentTarget.value)}
            data-testid="fleet-task-prompt"
          />
        </label>
        <div class="form-grid">
          <label class="field">
            <span class="field-label">
              Model <span class="muted">(optional)</span>
            </span>
            <input
              class="input"
              value={modelInput}
              placeholder={model ?? 'the worker’s default'}
              onInput={(event) => setModelInput(event.currentTarget.value)}
              data-testid="fleet-task-model"
            />
          </label>
          <label class={timeoutProblem ? 'field input-invalid' : 'field'}>
            <span class="field-label">
              Timeout <span class="muted">(seconds, optional)</span>
            </span>
            <input
              class="input"
              inputMode="numeric"
              value={timeout}
              onInput={(event) => setTimeoutInput(event.currentTarget.value)}
              data-testid="fleet-task-timeout"
            />
            {timeoutProblem ? <span class="field-error">{timeoutProblem}</span> : null}
          </label>
        </div>
      </fieldset>
      <ErrorAlert message={error} testId="fleet-task-error" />
      <div class="form-footer">
        {disabledReason ? (
          <span class="small muted" data-testid="fleet-task-disabled">
            {disabledReason}
          </span>
        ) : null}
        <button
          type="submit"
          class="btn btn-primary"
          disabled={disabled || prompt.trim() === '' || timeoutProblem !== undefined}
          data-testid="fleet-task-submit"
        >
          {sending ? 'Sending…' : 'Send task'}
        </button>
      </div>
    </form>
  );
}
