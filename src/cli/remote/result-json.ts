import type { TaskResult } from '../../api/schemas.ts';
import { isErrorCode } from '../../core/error-codes.ts';
import { usageFromJson } from '../../task/budgets.ts';
import type { DoTaskResult } from '../../task/result.ts';

/**
 * A result as the API sends it (snake_case), as the runner returns it: what `agency run` prints and writes with
 * `--json`, so a run on a server reads like a local one. It reverses the server's `resultJson`.
 */
export function doTaskResultOf(result: TaskResult): DoTaskResult {
  return {
    taskId: result.task_id,
    loopName: result.loop_name,
    loopVersion: result.loop_version,
    loopSignature: result.loop_signature,
    progressDir: result.progress_dir,
    finishReason: result.finish_reason,
    usage: usageFromJson(result.usage),
    ...(result.output_text === undefined ? {} : { outputText: result.output_text }),
    ...(result.deliverables ? { deliverables: result.deliverables } : {}),
    ...(result.verified === undefined ? {} : { verified: result.verified }),
    ...(result.plan_sig === undefined ? {} : { planSig: result.plan_sig }),
    ...(result.steps
      ? {
          steps: result.steps.map((step) => ({
            id: step.id,
            name: step.name,
            kind: step.kind,
            status: step.status,
            ...(step.started_at ? { startedAt: step.started_at } : {}),
            ...(step.ended_at ? { endedAt: step.ended_at } : {}),
            toolsUsed: step.tools_used,
            toolCalls: step.tool_calls,
            toolsBlocked: step.tools_blocked,
            ...(step.output_ref ? { outputRef: step.output_ref } : {}),
            usage: usageFromJson(step.usage),
          })),
        }
      : {}),
    ...(result.warnings ? { warnings: result.warnings } : {}),
    ...(result.error
      ? {
          error: {
            code: isErrorCode(result.error.code) ? result.error.code : 'internal',
            message: result.error.message,
          },
        }
      : {}),
    startedAt: result.started_at,
    completedAt: result.completed_at,
  };
}
