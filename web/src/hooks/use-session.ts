import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../api/api-error.ts';
import { auth, setUnauthorizedHandler } from '../api/client.ts';

/** Whether someone is logged in: being checked, logged out (and why), or logged in as a principal. */
export type Session =
  | { state: 'checking' }
  | { state: 'failed'; message: string }
  | { state: 'anonymous'; reason?: string }
  | { state: 'in'; principal: string };

/** The browser's session with the server; any 401 from the API ends it and the login page shows. */
export function useSession(): {
  session: Session;
  loggedIn: (principal: string) => void;
  logout: () => Promise<void>;
  retry: () => void;
} {
  const [session, setSession] = useState<Session>({ state: 'checking' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    setUnauthorizedHandler(() =>
      setSession({ state: 'anonymous', reason: 'Your session has ended. Log in again to continue.' }),
    );
    auth.session().then(
      ({ principal }) => setSession({ state: 'in', principal }),
      (failure: unknown) => {
        const status = (failure as { status?: number }).status;
        setSession(status === 401 ? { state: 'anonymous' } : { state: 'failed', message: messageOf(failure) });
      },
    );
  }, [attempt]);
  return {
    session,
    loggedIn: (principal) => setSession({ state: 'in', principal }),
    logout: async () => {
      await auth.logout().catch(() => {});
      setSession({ state: 'anonymous' });
    },
    retry: () => {
      setSession({ state: 'checking' });
      setAttempt((value) => value + 1);
    },
  };
}
