/** The dashboard's pages, as the address bar names them. */
export type Route =
  | { page: 'tasks' }
  | { page: 'task'; id: string }
  | { page: 'approvals' }
  | { page: 'new' }
  | { page: 'fleet' }
  | { page: 'not_found'; path: string };

/** The page a path shows. Trailing slashes are ignored. */
export function matchRoute(pathname: string): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  if (path === '/' || path === '/tasks') return { page: 'tasks' };
  if (path === '/approvals') return { page: 'approvals' };
  if (path === '/new') return { page: 'new' };
  if (path === '/fleet') return { page: 'fleet' };
  const task = /^\/tasks\/([^/]+)$/.exec(path);
  if (task?.[1]) return { page: 'task', id: decodeURIComponent(task[1]) };
  return { page: 'not_found', path };
}

/** The path of a task's page. */
export function taskPath(id: string): string {
  return `/tasks/${encodeURIComponent(id)}`;
}
