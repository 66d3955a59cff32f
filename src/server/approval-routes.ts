import { z } from 'zod';
import { decisionRequestSchema, inboxSchema, requestIdSchema } from '../api/schemas.ts';
import { approvalDecisionSchema } from '../task/contracts/approvals.ts';
import { type ApiContext, errors, principalOf } from './api-route-parts.ts';
import type { Route } from '../http/route.ts';

/** `GET /agent/approvals`: the inbox. */
export const inboxRoute = ({ service }: ApiContext): Route => ({
  method: 'get',
  path: '/agent/approvals',
  summary: 'Every pending approval request across tasks, with what it asks',
  tag: 'approvals',
  responses: { 200: { description: 'the inbox', schema: inboxSchema }, ...errors(401) },
  handler: async (c) => c.json({ items: await service.inbox() }),
});

/** `POST /agent/approvals/{id}/decision`: a decision, signed with the caller's name. */
export const decisionRoute = ({ service }: ApiContext): Route => ({
  method: 'post',
  path: '/agent/approvals/{id}/decision',
  summary: "Approves or denies a request; the decision is signed with the caller's name",
  tag: 'approvals',
  params: z.object({ id: requestIdSchema }).strict(),
  body: { schema: decisionRequestSchema, contentType: 'application/json' },
  responses: {
    200: { description: 'the decision on file', schema: approvalDecisionSchema },
    ...errors(400, 401, 403, 404, 409),
  },
  handler: async (c, { params, body }) =>
    c.json(await service.decide(params.id!, body as z.infer<typeof decisionRequestSchema>, principalOf(c))),
});
