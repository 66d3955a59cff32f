import { z } from 'zod';
import { approvalDecisionSchema, approvalRequestSchema } from './approvals.ts';
import { eventFrameSchema } from './events.ts';
import { planSchema } from './plan.ts';
import { specSchema } from './spec.ts';
import { stateSchema } from './state.ts';
import { verifyReportSchema } from './verify-report.ts';

/** The on-disk contracts of a governed run, by the file name of their JSON Schema under docs/schemas/. */
export const CONTRACT_SCHEMAS = {
  'agent.events.v1.schema.json': eventFrameSchema,
  'agent.state.v1.schema.json': stateSchema,
  'plan.v1.schema.json': planSchema,
  'approval-request.v1.schema.json': approvalRequestSchema,
  'approval-decision.v1.schema.json': approvalDecisionSchema,
  'verify.v1.schema.json': verifyReportSchema,
  'task.spec.v1.schema.json': specSchema,
} as const;

/** The JSON Schema (draft 2020-12) of a contract, as published in docs/schemas/. */
export function contractJsonSchema(name: keyof typeof CONTRACT_SCHEMAS): Record<string, unknown> {
  const schema = z.toJSONSchema(CONTRACT_SCHEMAS[name], { target: 'draft-2020-12', io: 'output' }) as Record<
    string,
    unknown
  >;
  return { $id: `urn:agency:schema:${name.replace(/\.schema\.json$/, '')}`, ...schema };
}
