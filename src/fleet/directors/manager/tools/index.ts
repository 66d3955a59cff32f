// The manager director's delegation tools: agency tools, run under a governed run's tool gate and policy.
import type { Tool } from '../../../../tools/define-tool.ts';
import { createAwaitTaskTool } from './await-task.ts';
import { createDelegateTaskTool } from './delegate-task.ts';
import type { DelegationContext } from './delegation-context.ts';
import { createInspectWorkdirTool } from './inspect-workdir.ts';
import { createListWorkersTool } from './list-workers.ts';
import { createTaskResultTool } from './task-result.ts';

export type { DelegationContext } from './delegation-context.ts';
export { createDelegationLedger, type Delegation, type DelegationLedger } from './delegation-ledger.ts';

/** The names of the delegation tools. */
export const DELEGATION_TOOLS = Object.freeze([
  'list_workers',
  'delegate_task',
  'await_task',
  'task_result',
  'inspect_workdir',
]);

/**
 * The delegation tools of a manager's run: `list_workers`, `delegate_task` (the one with side effects: `exec`, so
 * policy and approvals treat it as an action), `await_task`, `task_result` and `inspect_workdir`. None starts a
 * worker; each reaches only the workers discovery finds and the tasks and workdirs of this run's delegations.
 */
export function delegationTools(context: DelegationContext): Tool[] {
  return [
    createListWorkersTool(context),
    createDelegateTaskTool(context),
    createAwaitTaskTool(context),
    createTaskResultTool(context),
    createInspectWorkdirTool(context),
  ] as Tool[];
}
