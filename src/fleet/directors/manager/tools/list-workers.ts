import { z } from 'zod';
import { defineTool, type Tool } from '../../../../tools/define-tool.ts';
import { type Component, isTaskableAgent } from '../../../discovery/component.ts';
import type { DelegationContext } from './delegation-context.ts';

/** A worker as `list_workers` shows it. */
export type ListedWorker = {
  name: string;
  url: string;
  executor: string | null;
  model: string | null;
  state: string;
  /** `green` answers; `yellow` missed a poll or two; `red` is unreachable. */
  health: Component['health'];
  current_task: { id: string; prompt_preview: string } | null;
};

/**
 * `list_workers` (read): the workers discovery finds now, with their executor, state, health and current task. Only
 * taskable agents are listed: directors (this manager among them) take no delegations.
 */
export function createListWorkersTool(context: Pick<DelegationContext, 'discover'>): Tool<object, ListedWorker[]> {
  return defineTool({
    name: 'list_workers',
    description:
      'List the workers (agents) of the fleet: name, executor, model, state (idle, working…), health (green, yellow, ' +
      'red = unreachable) and current task. Only these workers can take a delegated task; you cannot start new ones.',
    input: z.object({}),
    effects: 'read',
    timeoutMs: 30_000,
    execute: async () => (await context.discover()).filter(isTaskableAgent).map(listed),
  });
}

/** The listing of one component. */
export function listed(component: Component): ListedWorker {
  const { status } = component;
  const config = status?.config ?? {};
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    name: status?.name ?? component.url,
    url: component.url,
    executor: text(config['executor']),
    model: text(config['model']),
    state: component.health === 'red' ? 'unreachable' : (status?.state ?? 'unknown'),
    health: component.health,
    current_task: status?.current_task
      ? { id: status.current_task.id, prompt_preview: status.current_task.prompt_preview }
      : null,
  };
}
