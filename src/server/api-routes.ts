import type { ApiContext } from './api-route-parts.ts';
import { decisionRoute, inboxRoute } from './approval-routes.ts';
import { fleetEventsRoute } from './fleet/fleet-events-route.ts';
import {
  fleetQueueActionRoutes,
  fleetQueueSubmitRoute,
  fleetTaskEventsRoute,
  fleetTasksRoute,
} from './fleet/fleet-task-routes.ts';
import {
  componentRoute,
  fleetRoute,
  historyRecordRoute,
  historyRoute,
  submitRoute,
  taskActionRoutes,
  workerTaskRoute,
} from './fleet/fleet-routes.ts';
import type { Route } from '../http/route.ts';
import { serverInfoRoute } from './server-info-route.ts';
import {
  doTaskAsyncRoute,
  doTaskRoute,
  getTaskRoute,
  listTasksRoute,
  resumeTaskRoute,
  startTaskRoute,
  stopTaskRoute,
  taskResultRoute,
  uploadRoute,
} from './task-routes.ts';
import { deliverableRoute, taskEventsRoute } from './task-stream-routes.ts';

/** The routes of the API, in the order the OpenAPI document lists them. */
export function apiRoutes(api: ApiContext): Route[] {
  return [
    serverInfoRoute,
    listTasksRoute,
    doTaskRoute,
    doTaskAsyncRoute,
    getTaskRoute,
    taskEventsRoute,
    taskResultRoute,
    startTaskRoute,
    stopTaskRoute,
    resumeTaskRoute,
    uploadRoute,
    deliverableRoute,
    inboxRoute,
    decisionRoute,
    fleetRoute,
    fleetEventsRoute,
    componentRoute,
    submitRoute,
    workerTaskRoute,
    fleetTasksRoute,
    fleetQueueSubmitRoute,
    fleetTaskEventsRoute,
  ]
    .map((route) => route(api))
    .concat(taskActionRoutes(api), fleetQueueActionRoutes(api), historyRoute(api), historyRecordRoute(api));
}
