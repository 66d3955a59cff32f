import { z } from 'zod';
import { toBudgets } from '../../service/budgets.ts';
import {
  decisionRequestSchema,
  inlineFileSchema,
  requestIdSchema,
  resumeRequestSchema,
  startTaskRequestSchema,
  stopRequestSchema,
  TASK_FILTERS,
  taskIdSchema,
} from '../../api/schemas.ts';
import { inlineFiles } from '../../service/task-intake.ts';
import { deliverableResult } from './deliverable-content.ts';
import { followTask } from './follow-task.ts';
import { jsonResult } from './task-answers.ts';
import { type TaskToolDeps, taskTool } from './task-tool-entry.ts';
import type { McpToolEntry } from '../../mcp/mcp-capability.ts';

const taskId = z.object({ task_id: taskIdSchema }).strict();
const READ = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;
const CHANGE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true } as const;

/** The default and the most `follow_task` waits: below the SDK clients' 60 s request timeout, and ten minutes. */
export const FOLLOW_WAIT_MS = { default: 50_000, max: 600_000 } as const;

const startTaskTool = taskTool({
  name: 'start_task',
  description:
    'Starts a governed task from a Markdown brief (and small files for task/). agency gathers, plans, asks a person to approve the plan (and gated tool calls), acts, verifies and delivers files. Answers at once with the task id; follow it with follow_task.',
  input: startTaskRequestSchema,
  annotations: { ...CHANGE, title: 'Start a governed task' },
  run: async (input, { service, by }) => jsonResult(await service.start(input, by)),
});

const listTasksTool = taskTool({
  name: 'list_tasks',
  description:
    'Lists tasks, newest first, with status, phase, budgets used and pending approvals; filter by status, "active" or "stuck".',
  input: z
    .object({
      status: z.array(z.enum(TASK_FILTERS)).max(TASK_FILTERS.length).optional(),
      cursor: z.string().max(40).optional(),
      limit: z.number().int().min(1).max(100).optional(),
    })
    .strict(),
  annotations: { ...READ, title: 'List tasks' },
  run: async ({ status, cursor, limit }, { service }) =>
    jsonResult(
      await service.list({
        ...(status ? { filter: status } : {}),
        ...(cursor === undefined ? {} : { cursor }),
        ...(limit === undefined ? {} : { limit }),
      }),
    ),
});

const getTaskTool = taskTool({
  name: 'get_task',
  description:
    'A task in full: status, brief, plan versions with signatures, approvals, verify reports, deliverables and last_seq.',
  input: taskId,
  annotations: { ...READ, title: 'Get a task' },
  run: async ({ task_id }, { service }) => jsonResult(await service.get(task_id)),
});

const followTaskTool = taskTool({
  name: 'follow_task',
  description: `Follows a task's journal (events after "after") until its run ends, it waits for an approval, it is not running, or wait_ms passes (default ${FOLLOW_WAIT_MS.default}). Each event is sent as a progress notification when the call has a progress token. Answers with why it stopped, last_seq (pass it as "after" next time) and the pending approvals.`,
  input: taskId
    .extend({
      after: z.number().int().min(0).optional(),
      wait_ms: z.number().int().min(1).max(FOLLOW_WAIT_MS.max).optional(),
    })
    .strict(),
  annotations: { ...READ, title: 'Follow a task' },
  run: async ({ task_id, after, wait_ms }, { service, extra }) => {
    const token = extra._meta?.progressToken;
    const followed = await followTask(service, task_id, {
      ...(after === undefined ? {} : { after }),
      waitMs: wait_ms ?? FOLLOW_WAIT_MS.default,
      signal: extra.signal,
      onFrame(frame) {
        if (token === undefined) return;
        const message = `${frame.type}${frame.step ? ` [${frame.step}]` : ''}: ${frame.message ?? ''}`.trim();
        extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: frame.seq, message: message.slice(0, 1000) },
          })
          .catch(() => undefined);
      },
    });
    return jsonResult(followed);
  },
});

const getTaskResultTool = taskTool({
  name: 'get_task_result',
  description: "A finished run's result: minimal, summary (default) or full (with steps).",
  input: taskId.extend({ view: z.enum(['minimal', 'summary', 'full']).optional() }).strict(),
  annotations: { ...READ, title: 'Get a task result' },
  run: async ({ task_id, view }, { service }) => jsonResult(await service.result(task_id, view ?? 'summary')),
});

const stopTaskTool = taskTool({
  name: 'stop_task',
  description:
    'Stops a run within a second, at its next boundary (journaled; resume_task continues it), or takes a queued one out of the queue.',
  input: stopRequestSchema.extend(taskId.shape).strict(),
  annotations: { ...CHANGE, destructiveHint: true, title: 'Stop a task' },
  run: async ({ task_id, reason }, { service, by }) => jsonResult(await service.stop(task_id, reason ?? 'stopped', by)),
});

const resumeTaskTool = taskTool({
  name: 'resume_task',
  description: 'Resumes a run that was stopped, interrupted or ran out of budget, optionally with raised budgets.',
  input: resumeRequestSchema.extend(taskId.shape).strict(),
  annotations: { ...CHANGE, title: 'Resume a task' },
  run: async ({ task_id, budgets }, { service, by }) =>
    jsonResult(await service.resume(task_id, budgets ? toBudgets(budgets) : undefined, by)),
});

const uploadTaskFilesTool = taskTool({
  name: 'upload_task_files',
  description:
    'Writes files into task/ of a task started with "hold": true, before it runs; start it with release_task.',
  input: taskId.extend({ files: z.array(inlineFileSchema).min(1).max(100) }).strict(),
  annotations: { ...CHANGE, openWorldHint: false, title: 'Upload files to a held task' },
  // The inline files of a start request are decoded and checked the same way (names, base64, sizes).
  run: async ({ task_id, files }, { service }) =>
    jsonResult(await service.upload(task_id, inlineFiles({ brief: '-', files }, service.settings.limits))),
});

const releaseTaskTool = taskTool({
  name: 'release_task',
  description: 'Starts a task that was created with "hold": true.',
  input: taskId,
  annotations: { ...CHANGE, title: 'Start a held task' },
  run: async ({ task_id }, { service, by }) => jsonResult(await service.release(task_id, by)),
});

const listApprovalsTool = taskTool({
  name: 'list_approvals',
  description:
    'The approval requests waiting for a decision, across tasks (or of one task): each with its task, what it asks (the plan under review, or the tool and its arguments) and whether it is pending, expired or stale.',
  input: z.object({ task_id: taskIdSchema.optional() }).strict(),
  annotations: { ...READ, title: 'List pending approvals' },
  run: async ({ task_id }, { service }) => {
    const items = await service.inbox();
    return jsonResult({ items: task_id ? items.filter((item) => item.task_id === task_id) : items });
  },
});

const decideApprovalTool = taskTool({
  name: 'decide_approval',
  description:
    'Approves or denies an approval request, with a reason. The decision file is signed with your name and bound to the plan signature or tool arguments asked about; pass task_id to make sure the request is that task\u2019s.',
  input: decisionRequestSchema.extend({ request_id: requestIdSchema }).strict(),
  annotations: { ...CHANGE, destructiveHint: true, title: 'Approve or deny a request' },
  run: async ({ request_id, ...decision }, { service, by }) =>
    jsonResult(await service.decide(request_id, decision, by)),
});

const readDeliverableTool = taskTool({
  name: 'read_deliverable',
  description:
    'Reads a file a finished run delivered (a path from get_task\u2019s deliverables, e.g. progress/artifacts/summary.md): text as text, images as images, other files as an embedded resource.',
  input: taskId.extend({ path: z.string().min(1).max(1024) }).strict(),
  annotations: { ...READ, title: 'Read a deliverable' },
  run: async ({ task_id, path }, { service, maxReadBytes }) => deliverableResult(service, task_id, path, maxReadBytes),
});

const TASK_TOOLS = [
  startTaskTool,
  listTasksTool,
  getTaskTool,
  followTaskTool,
  getTaskResultTool,
  stopTaskTool,
  resumeTaskTool,
  uploadTaskFilesTool,
  releaseTaskTool,
  listApprovalsTool,
  decideApprovalTool,
  readDeliverableTool,
];

/**
 * The tools of governed tasks, each a thin call of the task service: the same operations, inputs and errors as the
 * HTTP API, acting as the request's principal.
 */
export function taskToolEntries(deps: TaskToolDeps): McpToolEntry[] {
  return TASK_TOOLS.map((tool) => tool(deps));
}
