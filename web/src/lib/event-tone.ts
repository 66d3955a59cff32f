import type { EventType } from '../api/types.ts';
import type { Tone } from './tone.ts';

/** The colour of a journal frame's type in the timeline. */
export function eventTone(type: EventType): Tone {
  if (type === 'error' || type === 'verify.fail' || type === 'tool.blocked' || type === 'policy.blocked') return 'red';
  if (type === 'verify.pass' || type === 'finish') return 'green';
  if (type === 'budget.hit' || type === 'warning' || type === 'approval.invalid') return 'yellow';
  if (type.startsWith('approval.')) return 'orange';
  if (type.startsWith('plan.')) return 'purple';
  if (type.startsWith('tool.')) return 'cyan';
  if (type.startsWith('phase.') || type.startsWith('run.')) return 'blue';
  if (type === 'budget.changed' || type === 'policy.modified') return 'azure';
  return 'gray';
}

/** Frames that are bookkeeping rather than something a reader follows: hidden unless asked for. */
export function isQuietEvent(type: EventType): boolean {
  return type === 'usage.delta' || type === 'step.checkpoint' || type === 'memory.read' || type === 'memory.write';
}
