// How the fleet reads in the dashboard: health and states in words and colours, and which actions apply. Pure.
import type { ComponentView, FleetRegistryView, WorkerTaskState } from '../api/types.ts';
import type { Tone } from './tone.ts';

/** A component's health in words, so the colour is never the only sign. */
export const HEALTH_LABELS: Record<ComponentView['health'], string> = {
  green: 'Healthy',
  yellow: 'Missed polls',
  red: 'Unreachable',
};

/** The badge colour of a component's health. */
export const HEALTH_TONES: Record<ComponentView['health'], Tone> = { green: 'green', yellow: 'yellow', red: 'red' };

/** The tone of a registry worker's heartbeat health. */
export const REGISTRY_HEALTH_TONES: Record<FleetRegistryView['workers'][number]['health'], Tone> = {
  healthy: 'green',
  late: 'yellow',
  lost: 'red',
  stopped: 'gray',
};

const TASK_TONES: Record<WorkerTaskState, Tone> = {
  queued: 'azure',
  working: 'blue',
  idle: 'purple',
  cancelling: 'orange',
  cancelled: 'gray',
  completed: 'green',
  failed: 'red',
};

/** The badge colour of a worker task's state. */
export function taskTone(state: WorkerTaskState): Tone {
  return TASK_TONES[state];
}

/** A worker task's state in words: `idle` is a session waiting for its next prompt. */
export function taskStateLabel(state: WorkerTaskState): string {
  return state === 'idle' ? 'idle (session open)' : state;
}

/** A task that will not change again. */
export function isFinalTask(state: WorkerTaskState): boolean {
  return state === 'completed' || state === 'failed' || state === 'cancelled';
}

/** Why a component takes no task now, or undefined when it does: an idle, healthy worker. */
export function whyNoTask(component: ComponentView): string | undefined {
  if (!component.taskable) return `A ${component.type ?? 'component'} does not take tasks.`;
  if (component.health !== 'green') return 'The worker does not answer its polls.';
  if (component.state !== 'idle') return `The worker is ${component.state ?? 'unknown'}.`;
  return undefined;
}

/** The key a component is listed by: its name, or its URL until it first answered. */
export function componentKey(component: ComponentView): string {
  return component.name ?? component.url;
}
