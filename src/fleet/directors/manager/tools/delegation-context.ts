import type { Component } from '../../../discovery/component.ts';
import type { WorkerClient } from '../../../worker-client.ts';
import type { TaskDispatch } from '../../task-dispatch.ts';
import type { DelegationLedger } from './delegation-ledger.ts';

/** What the delegation tools work with: the fleet, the dispatch port, and the run's ledger of delegations. */
export type DelegationContext = {
  /** The run's delegations, in its task root. */
  ledger: DelegationLedger;
  /** The components discovery finds now (a port scan and the static list), freshly polled. */
  discover(): Promise<Component[]>;
  dispatch: TaskDispatch;
  /** The client of a worker discovery found. */
  clientFor(url: string): WorkerClient;
  /** Where delegated workdirs may lie: the manager reads them, never writes them. */
  readablePaths: readonly string[];
  /** How long a delegation waits for an idle worker. */
  waitForWorkerMs: number;
  now(): number;
};
