import { api } from './api/client.ts';
import { ErrorAlert } from './components/error-alert.tsx';
import { NavBar } from './components/nav-bar.tsx';
import { Loading } from './components/spinner.tsx';
import { useLocation } from './hooks/use-location.ts';
import { useResource } from './hooks/use-resource.ts';
import { useSession } from './hooks/use-session.ts';
import { matchRoute, type Route } from './lib/routes.ts';
import { ApprovalsPage } from './pages/approvals-page.tsx';
import { FleetPage } from './pages/fleet-page.tsx';
import { LoginPage } from './pages/login-page.tsx';
import { NewTaskPage } from './pages/new-task-page.tsx';
import { NotFoundPage } from './pages/not-found-page.tsx';
import { TaskPage } from './pages/task-page.tsx';
import { TasksPage } from './pages/tasks-page.tsx';

/** The dashboard: the login page until there is a session, then the nav bar and the page the address names. */
export function App() {
  const { session, loggedIn, logout, retry } = useSession();
  if (session.state === 'checking') return <Loading label="Connecting to agency…" />;
  if (session.state === 'failed') {
    return (
      <main class="login">
        <ErrorAlert message={session.message} onRetry={retry} />
      </main>
    );
  }
  if (session.state === 'anonymous') return <LoginPage reason={session.reason} onLoggedIn={loggedIn} />;
  return <Shell principal={session.principal} onLogout={() => void logout()} />;
}

function Shell({ principal, onLogout }: { principal: string; onLogout: () => void }) {
  const { pathname, search } = useLocation();
  const route = matchRoute(pathname);
  const server = useResource(() => api.server(), 'server');
  const inbox = useResource(() => api.approvals(), 'inbox-count', { pollMs: 10_000 });
  const pending = inbox.data?.items.filter((item) => item.state === 'pending').length ?? 0;
  return (
    <div class="app">
      <NavBar
        route={route}
        principal={principal}
        version={server.data?.version}
        pendingApprovals={pending}
        onLogout={onLogout}
      />
      <main class="container main">{page(route, search, server.data, inbox.reload)}</main>
      <footer class="container footer small muted">
        agency
        {server.data
          ? ` ${server.data.version} · policy ${server.data.policy} · up to ${server.data.max_concurrent_runs} runs at once`
          : ''}
      </footer>
    </div>
  );
}

function page(
  route: Route,
  search: URLSearchParams,
  server: Parameters<typeof NewTaskPage>[0]['server'],
  onChanged: () => void,
) {
  switch (route.page) {
    case 'tasks':
      return <TasksPage search={search} />;
    case 'task':
      return <TaskPage key={route.id} id={route.id} onChanged={onChanged} />;
    case 'approvals':
      return <ApprovalsPage onChanged={onChanged} />;
    case 'new':
      return <NewTaskPage server={server} />;
    case 'fleet':
      return <FleetPage />;
    case 'not_found':
      return <NotFoundPage path={route.path} />;
  }
}
