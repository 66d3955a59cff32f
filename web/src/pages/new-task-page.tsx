import { useState } from 'preact/hooks';
import { messageOf } from '../api/api-error.ts';
import { api } from '../api/client.ts';
import type { ServerInfo, StartTaskRequest } from '../api/types.ts';
import { Card } from '../components/card.tsx';
import { ErrorAlert } from '../components/error-alert.tsx';
import { BudgetFields } from '../components/form/budget-fields.tsx';
import { FilePicker } from '../components/form/file-picker.tsx';
import { Link } from '../components/link.tsx';
import { PageHeader } from '../components/page-header.tsx';
import { navigate } from '../hooks/use-location.ts';
import { EMPTY_BUDGETS, parseBudgets } from '../lib/budget-inputs.ts';
import { taskPath } from '../lib/routes.ts';
import { checkUploads } from '../lib/upload-limits.ts';

type Progress = { step: 'creating' | 'uploading' | 'starting'; taskId?: string };

const STEP_LABELS: Record<Progress['step'], string> = {
  creating: 'Creating the task…',
  uploading: 'Uploading files…',
  starting: 'Starting…',
};

/** A new governed task: brief, files (held until uploaded, then started), model, budgets and approval mode. */
export function NewTaskPage({ server }: { server: ServerInfo | undefined }) {
  const [brief, setBrief] = useState('');
  const [goal, setGoal] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [model, setModel] = useState<string | undefined>(undefined);
  const [mode, setMode] = useState<'file' | 'auto' | undefined>(undefined);
  const [budgetInputs, setBudgetInputs] = useState(EMPTY_BUDGETS);
  const [progress, setProgress] = useState<Progress | undefined>(undefined);
  const [error, setError] = useState<{ message: string; taskId?: string } | undefined>(undefined);
  const parsed = parseBudgets(budgetInputs);
  const uploadProblem = checkUploads(files, server?.limits);
  const chosenModel = model ?? server?.default_model ?? server?.models[0] ?? '';
  const chosenMode = mode ?? (server?.approval_modes.includes('file') ? 'file' : server?.approval_modes[0]);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (!brief.trim() || Object.keys(parsed.errors).length > 0 || uploadProblem) return;
    setError(undefined);
    const request: StartTaskRequest = {
      brief,
      ...(goal.trim() ? { goal: goal.trim() } : {}),
      ...(chosenModel ? { model: chosenModel } : {}),
      ...(parsed.budgets ? { budgets: parsed.budgets } : {}),
      ...(chosenMode ? { approvals: { mode: chosenMode } } : {}),
      ...(files.length > 0 ? { hold: true } : {}),
    };
    let taskId: string | undefined;
    try {
      setProgress({ step: 'creating' });
      taskId = (await api.start(request)).task_id;
      if (files.length > 0) {
        setProgress({ step: 'uploading', taskId });
        await api.upload(taskId, files);
        setProgress({ step: 'starting', taskId });
        await api.startHeld(taskId);
      }
      navigate(taskPath(taskId));
    } catch (failure) {
      setError({ message: messageOf(failure), ...(taskId ? { taskId } : {}) });
      setProgress(undefined);
    }
  };

  return (
    <div class="page page-narrow" data-testid="new-task-page">
      <PageHeader pretitle="Start" title="New task" />
      <form class="form" onSubmit={(event) => void submit(event)} data-testid="newtask-form" noValidate>
        <Card title="What to do">
          <label class="field">
            <span class="field-label">
              Brief <span class="muted">(Markdown; its first heading is the goal)</span>
            </span>
            <textarea
              class="input textarea-lg mono-input"
              rows={10}
              required
              value={brief}
              placeholder={'# Summarise the Q3 report\n\nRead task/q3.pdf and write a one-page summary to summary.md…'}
              onInput={(event) => setBrief(event.currentTarget.value)}
              data-testid="newtask-brief"
            />
          </label>
          <label class="field">
            <span class="field-label">
              Goal <span class="muted">(optional, overrides the heading)</span>
            </span>
            <input
              class="input"
              value={goal}
              maxLength={2_000}
              onInput={(event) => setGoal(event.currentTarget.value)}
              data-testid="newtask-goal"
            />
          </label>
          <div class="field">
            <span class="field-label">Files</span>
            <FilePicker
              files={files}
              onChange={setFiles}
              maxFiles={server?.limits.upload_files}
              maxBytes={server?.limits.upload_bytes}
            />
            {uploadProblem ? <span class="field-error">{uploadProblem}</span> : null}
          </div>
        </Card>
        <Card title="How to run it">
          <div class="form-grid">
            <label class="field">
              <span class="field-label">Model</span>
              <select
                class="select"
                value={chosenModel}
                disabled={!server}
                onChange={(event) => setModel(event.currentTarget.value)}
                data-testid="newtask-model"
              >
                {(server?.models ?? []).map((name) => (
                  <option key={name} value={name}>
                    {name}
                    {name === server?.default_model ? ' (default)' : ''}
                  </option>
                ))}
              </select>
            </label>
            <label class="field">
              <span class="field-label">Approval mode</span>
              <select
                class="select"
                value={chosenMode}
                disabled={!server}
                onChange={(event) => setMode(event.currentTarget.value as 'file' | 'auto')}
                data-testid="newtask-approval-mode"
              >
                {(server?.approval_modes ?? []).map((name) => (
                  <option key={name} value={name}>
                    {name === 'file'
                      ? 'file — a person approves the plan and gated tools'
                      : 'auto — approved automatically, still recorded'}
                  </option>
                ))}
              </select>
            </label>
          </div>
          <div class="field-label section-label">
            Budgets <span class="muted">(empty: the server's defaults)</span>
          </div>
          <BudgetFields
            values={budgetInputs}
            errors={parsed.errors}
            onChange={setBudgetInputs}
            testIdPrefix="newtask-"
          />
        </Card>
        <ErrorAlert message={error?.message} testId="newtask-error" />
        {error?.taskId ? (
          <div class="small muted">
            The task was created and is held: <Link href={taskPath(error.taskId)}>{error.taskId}</Link>.
          </div>
        ) : null}
        <div class="form-footer">
          <span class="small muted" data-testid="newtask-progress">
            {progress
              ? STEP_LABELS[progress.step]
              : files.length > 0
                ? `${files.length} file${files.length === 1 ? '' : 's'} will be uploaded before the task starts.`
                : ''}
          </span>
          <button
            type="submit"
            class="btn btn-primary btn-lg"
            disabled={
              progress !== undefined ||
              !brief.trim() ||
              !server ||
              Object.keys(parsed.errors).length > 0 ||
              Boolean(uploadProblem)
            }
            data-testid="newtask-submit"
          >
            {progress ? 'Working…' : 'Start task'}
          </button>
        </div>
      </form>
    </div>
  );
}
