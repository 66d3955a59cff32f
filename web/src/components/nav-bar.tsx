import type { Route } from '../lib/routes.ts';
import { BrandMark } from './brand-mark.tsx';
import { Link } from './link.tsx';

type NavBarProps = {
  route: Route;
  principal: string;
  version: string | undefined;
  pendingApprovals: number;
  onLogout: () => void;
};

const LINKS = [
  { href: '/', label: 'Tasks', testId: 'nav-tasks', pages: ['tasks', 'task'] },
  { href: '/approvals', label: 'Approvals', testId: 'nav-approvals', pages: ['approvals'] },
  { href: '/new', label: 'New task', testId: 'nav-new', pages: ['new'] },
  { href: '/fleet', label: 'Fleet', testId: 'nav-fleet', pages: ['fleet'] },
] as const;

/** The top bar: the brand, the pages, and who is logged in. */
export function NavBar({ route, principal, version, pendingApprovals, onLogout }: NavBarProps) {
  return (
    <header class="navbar">
      <div class="navbar-inner container">
        <Link href="/" class="brand" data-testid="nav-brand">
          <BrandMark />
          <span class="brand-name">agency</span>
          {version ? <span class="brand-version">v{version}</span> : null}
        </Link>
        <nav class="nav" aria-label="Main">
          {LINKS.map((link) => {
            const active = (link.pages as readonly string[]).includes(route.page);
            return (
              <Link
                key={link.href}
                href={link.href}
                class={active ? 'nav-link nav-link-active' : 'nav-link'}
                aria-current={active ? 'page' : undefined}
                data-testid={link.testId}
              >
                {link.label}
                {link.testId === 'nav-approvals' && pendingApprovals > 0 ? (
                  <span class="nav-count" data-testid="nav-approvals-count">
                    {pendingApprovals}
                  </span>
                ) : null}
              </Link>
            );
          })}
        </nav>
        <div class="navbar-user">
          <span class="avatar" aria-hidden="true">
            {principal.slice(0, 2).toUpperCase()}
          </span>
          <span class="navbar-principal mono" data-testid="nav-principal">
            {principal}
          </span>
          <button type="button" class="btn btn-sm btn-ghost" onClick={onLogout} data-testid="nav-logout">
            Log out
          </button>
        </div>
      </div>
    </header>
  );
}
