import { useState } from 'preact/hooks';
import { messageOf } from '../../api/api-error.ts';
import { api } from '../../api/client.ts';
import { ErrorAlert } from '../error-alert.tsx';

type DecisionFormProps = {
  requestId: string;
  taskId: string;
  /** Why no decision can be made (expired, stale): the buttons are disabled and this is said instead. */
  blocked?: string;
  onDecided: (decision: 'approved' | 'denied') => void;
};

/** A reason and the approve and deny buttons of one request. The server's refusal is shown in place. */
export function DecisionForm({ requestId, taskId, blocked, onDecided }: DecisionFormProps) {
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<'approved' | 'denied' | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  const decide = async (decision: 'approved' | 'denied'): Promise<void> => {
    setBusy(decision);
    setError(undefined);
    try {
      const trimmed = reason.trim();
      await api.decide(requestId, { decision, task_id: taskId, ...(trimmed ? { reason: trimmed } : {}) });
      onDecided(decision);
    } catch (failure) {
      setError(messageOf(failure));
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <div class="decision" data-testid={`decision-${requestId}`}>
      {blocked ? (
        <div class="decision-blocked small" data-testid={`approval-blocked-${requestId}`}>
          {blocked}
        </div>
      ) : null}
      {blocked ? null : (
        <label class="field">
          <span class="field-label">
            Reason <span class="muted">(optional, recorded with the decision)</span>
          </span>
          <textarea
            class="input"
            rows={2}
            maxLength={2_000}
            value={reason}
            disabled={busy !== undefined}
            placeholder="Why approve or deny?"
            onInput={(event) => setReason(event.currentTarget.value)}
            data-testid={`approval-reason-${requestId}`}
          />
        </label>
      )}
      <ErrorAlert message={error} testId={`approval-error-${requestId}`} />
      <div class="decision-buttons">
        <button
          type="button"
          class="btn btn-success"
          disabled={Boolean(blocked) || busy !== undefined}
          onClick={() => void decide('approved')}
          data-testid={`approve-${requestId}`}
        >
          {busy === 'approved' ? 'Approving…' : 'Approve'}
        </button>
        <button
          type="button"
          class="btn btn-danger-outline"
          disabled={Boolean(blocked) || busy !== undefined}
          onClick={() => void decide('denied')}
          data-testid={`deny-${requestId}`}
        >
          {busy === 'denied' ? 'Denying…' : 'Deny'}
        </button>
      </div>
    </div>
  );
}
