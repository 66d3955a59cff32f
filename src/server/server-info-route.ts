import { serverInfoSchema } from '../api/schemas.ts';
import { type ApiContext, errors, principalOf } from './api-route-parts.ts';
import type { Route } from '../http/route.ts';

/** `GET /agent/server`: what this server allows, and who asks. */
export const serverInfoRoute = (api: ApiContext): Route => ({
  method: 'get',
  path: '/agent/server',
  summary: 'What this server allows: models, approval modes, limits, and who you are',
  tag: 'server',
  responses: { 200: { description: 'the server', schema: serverInfoSchema }, ...errors(401) },
  handler: async (c) => {
    const { settings } = api.service;
    return c.json({
      version: api.version,
      principal: principalOf(c).name,
      default_model: settings.models[0] ?? null,
      models: [...settings.models],
      approval_modes: [...settings.approvalModes],
      policy: api.policy,
      max_concurrent_runs: settings.maxConcurrentRuns,
      limits: {
        body_bytes: api.limits.bodyBytes,
        upload_bytes: api.limits.uploadBytes,
        upload_files: settings.limits.files,
      },
    });
  },
});
