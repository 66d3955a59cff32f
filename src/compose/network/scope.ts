import { AsyncLocalStorage } from 'node:async_hooks';
import { AgencyError } from '../../core/errors.ts';
import type { IdGenerator } from '../../core/ids.ts';
import type { Usage } from '../../core/usage.ts';
import type { Suspended } from '../../agent/suspend.ts';
import type { AgentEvent, DelegationPlace } from '../../agent/types.ts';
import type { BudgetMeter } from './budget.ts';

/** A delegation whose sub-agent suspended: resumed when the router's run is resumed. */
export type PendingDelegation = { runId: string; handle: Suspended };

/** The state of one network run that its delegation tools share. */
export type NetworkScope = {
  runId: string;
  /** Agent names from the outermost network to this one. */
  path: string[];
  meter: BudgetMeter;
  /** Aborted when the budget is overrun: it stops the sub-agents running then. */
  stopDelegations: AbortController;
  /** Usage and run id of each delegation, by the router's tool call id. */
  delegations: Map<string, { runId: string; usage: Usage }>;
  pending: Map<string, PendingDelegation>;
  emit: (event: AgentEvent) => void;
  now: () => number;
  newId: IdGenerator;
};

/** Where a sub-agent runs: a network started inside it finds its place and its parent's budget here. */
export type DelegationFrame = { path: string[]; meter: BudgetMeter };

const scopes = new AsyncLocalStorage<NetworkScope>();
const frames = new AsyncLocalStorage<DelegationFrame>();

/** Runs `fn` as part of the network run `scope`. */
export function inNetworkScope<T>(scope: NetworkScope, fn: () => T): T {
  return frames.exit(() => scopes.run(scope, fn));
}

/** Runs `fn` as the delegation `frame`. */
export function inDelegationFrame<T>(frame: DelegationFrame, fn: () => T): T {
  return frames.run(frame, fn);
}

/** The network run a delegation tool is called from. @throws AgencyError `invalid_argument` outside a network. */
export function currentScope(tool: string): NetworkScope {
  const scope = scopes.getStore();
  if (!scope) {
    throw new AgencyError(
      'invalid_argument',
      `Tool "${tool}" delegates to a sub-agent and runs only inside its network`,
    );
  }
  return scope;
}

/** The network run in progress, if any (for the router's budget gate). */
export function activeScope(): NetworkScope | undefined {
  return scopes.getStore();
}

/** The delegation a network is started in, when it is a sub-agent of another network. */
export function currentFrame(): DelegationFrame | undefined {
  return frames.getStore();
}

/**
 * Passes a sub-agent's event on to the network's listeners: delegation events of a nested network keep their own
 * place; the others are wrapped with the sub-agent's. The sub-agent's `finish` is summed up by `agent-finish`.
 */
export function forwardEvent(scope: NetworkScope, place: DelegationPlace, event: AgentEvent): void {
  if (event.type === 'iteration-finish') scope.meter.charge(event.usage);
  if (event.type === 'agent-event' && event.event.type === 'iteration-finish') scope.meter.charge(event.event.usage);
  if (event.type === 'finish') return;
  if (event.type === 'agent-start' || event.type === 'agent-finish' || event.type === 'agent-event') {
    scope.emit(event);
    return;
  }
  const { agent, runId, path, depth } = place;
  scope.emit({ type: 'agent-event', agent, runId, path, depth, event });
}
