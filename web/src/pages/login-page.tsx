import { useState } from 'preact/hooks';
import { messageOf } from '../api/api-error.ts';
import { auth } from '../api/client.ts';
import { BrandMark } from '../components/brand-mark.tsx';
import { ErrorAlert } from '../components/error-alert.tsx';

/** The token prompt. The token is sent once; the server answers with an HttpOnly session cookie. */
export function LoginPage({ reason, onLoggedIn }: { reason?: string; onLoggedIn: (principal: string) => void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    if (!token.trim()) return;
    setBusy(true);
    setError(undefined);
    try {
      await auth.login(token.trim());
      const session = await auth.session();
      onLoggedIn(session.principal);
    } catch (failure) {
      setError(messageOf(failure));
      setBusy(false);
    }
  };

  return (
    <main class="login" data-testid="login-page">
      <div class="login-brand">
        <BrandMark />
        <span class="brand-name">agency</span>
      </div>
      <form class="card login-card" onSubmit={(event) => void submit(event)} data-testid="login-form">
        <div class="card-body">
          <h1 class="login-title">Log in to the dashboard</h1>
          <p class="muted small">
            Paste the token <code>agency serve</code> printed when it started (or <code>AGENCY_TOKEN</code>).
          </p>
          {reason ? <div class="alert alert-info small">{reason}</div> : null}
          <label class="field">
            <span class="field-label">Token</span>
            <input
              class="input mono-input"
              type="password"
              autoComplete="current-password"
              autoFocus
              value={token}
              onInput={(event) => setToken(event.currentTarget.value)}
              data-testid="login-token"
            />
          </label>
          <ErrorAlert message={error} testId="login-error" />
          <button
            type="submit"
            class="btn btn-primary btn-block"
            disabled={busy || !token.trim()}
            data-testid="login-submit"
          >
            {busy ? 'Logging in…' : 'Log in'}
          </button>
        </div>
      </form>
    </main>
  );
}
