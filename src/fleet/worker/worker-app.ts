import type { Hono } from 'hono';
import { type ComponentAppOptions, createComponentApp } from '../component-app.ts';
import { type WorkerRouteContext, workerRoutes } from './worker-routes.ts';

/** Options for {@link createWorkerApp}. */
export type WorkerAppOptions = WorkerRouteContext & Omit<ComponentAppOptions, 'routes' | 'about'>;

const ABOUT = {
  title: 'agency worker',
  description:
    'An agent daemon (seed 004, appendix A): one task at a time, sessions continued or ended, history. Bound to ' +
    'loopback it needs no token; bound elsewhere every route needs `Authorization: Bearer <token>`.',
  what: 'worker',
};

/** A worker's HTTP API as a Hono app: its routes (`worker-routes.ts`) in the fleet's component app. */
export function createWorkerApp(options: WorkerAppOptions): Hono {
  return createComponentApp({ ...options, routes: workerRoutes(options), about: ABOUT });
}
