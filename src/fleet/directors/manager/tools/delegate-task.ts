import { z } from 'zod';
import { defineTool, type Tool } from '../../../../tools/define-tool.ts';
import { sessionIdSchema } from '../../../api/worker-schemas.ts';
import type { DelegationContext } from './delegation-context.ts';
import { type DelegationAnswer, sendDelegation } from './send-delegation.ts';

const input = z.object({
  prompt: z
    .string()
    .min(1)
    .max(100_000)
    .describe('The whole task for the worker, self-contained: what to do, where, and how to tell it is done'),
  worker: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe(
      'A worker from list_workers (name or URL); leave out for an idle one, the one used before in this workdir first',
    ),
  workdir: z
    .string()
    .min(1)
    .max(4_096)
    .optional()
    .describe('An absolute directory the worker works in; leave out for a fresh one of its own'),
  session: sessionIdSchema
    .optional()
    .describe('The session_id of an earlier delegation to carry on (same worker, same workdir, its history kept)'),
  model: z.string().min(1).max(200).optional().describe("The worker's model for this task; default its own"),
  timeout_seconds: z.int().min(1).max(86_400).optional().describe("The task's timeout; default the worker's"),
});

/**
 * `delegate_task` (`exec`, idempotent by its tool-call id): hands a task to a worker discovery found — the one named,
 * else an idle one, the one used before in the same workdir first — or the next prompt of a session this manager
 * delegated. Never starts a worker. Called again for the same tool call after a crash, it answers the delegation it
 * made rather than making another (see `sendDelegation`).
 */
export function createDelegateTaskTool(context: DelegationContext): Tool<z.output<typeof input>, DelegationAnswer> {
  return defineTool({
    name: 'delegate_task',
    description:
      'Hand a task to a worker of the fleet (or carry on one of your sessions with a new prompt). Returns its ' +
      'task_id and session_id at once; then await_task it. You cannot start workers; use the ones list_workers shows.',
    input,
    effects: 'exec',
    idempotent: true,
    timeoutMs: context.waitForWorkerMs + 120_000,
    execute: (args, { toolCallId, signal }) => sendDelegation(context, args, toolCallId, signal),
  });
}
