import { z } from 'zod';
import { utf8ByteLength } from '../core/bytes.ts';
import { AgencyError } from '../core/errors.ts';
import { decodeJson, encodeJson } from '../core/json-codec.ts';
import type { JsonValue } from '../core/messages.ts';
import type { RunState } from './run-state.ts';
import type { AgentResult, ExecuteOptions } from './types.ts';

/** The schema name written into serialized suspended runs. */
export const SUSPENDED_RUN_SCHEMA = 'agency.suspended-run.v1';

/** A suspended run, serialized as JSON so another process can resume it. */
export type SerializedRun = {
  schema: typeof SUSPENDED_RUN_SCHEMA;
  agent: string;
  suspendedAt: string;
  payload: JsonValue;
  /** The run state, JSON-codec encoded. */
  state: unknown;
};

const serializedRunSchema = z.object({
  schema: z.literal(SUSPENDED_RUN_SCHEMA),
  agent: z.string().min(1),
  suspendedAt: z.string(),
  payload: z.unknown(),
  state: z.record(z.string(), z.unknown()),
});

/** A paused run. Resume it once, before it expires, or release it. */
export type Suspended = {
  /** `sus_…` */
  readonly id: string;
  /** What the run is waiting for, from the processor or tool that suspended it. */
  readonly payload: JsonValue;
  /** When the snapshot is released if not resumed. */
  readonly expiresAt: string;
  /**
   * Continues the run; `data` reaches the processor or tool that suspended it as `resumeData`.
   * @throws AgencyError `suspension_used` on a second call or after `release()`, `suspension_expired` after the TTL.
   */
  resume(data?: JsonValue, options?: ExecuteOptions): Promise<AgentResult>;
  /** Frees the snapshot now; `resume` will then fail. */
  release(): void;
  /** The run as JSON, for `agent.resumeSerialized` in this or another process. */
  serialize(): SerializedRun;
};

/** Limits on what an agent keeps in memory for its suspended runs. */
export type SuspendBudget = {
  /** @default 20 */
  maxSnapshots?: number;
  /** @default 268435456 (256 MB) */
  maxBytes?: number;
};

/** Counts an agent's live suspended runs against its budget. */
export type SuspendLedger = {
  reserve(bytes: number): void;
  free(bytes: number): void;
  readonly snapshots: number;
  readonly bytes: number;
};

/** Creates the ledger for one agent. */
export function createSuspendLedger({
  maxSnapshots = 20,
  maxBytes = 256 * 1024 * 1024,
}: SuspendBudget = {}): SuspendLedger {
  let snapshots = 0;
  let bytes = 0;
  return {
    reserve(size) {
      if (snapshots + 1 > maxSnapshots || bytes + size > maxBytes) {
        throw new AgencyError(
          'suspend_budget_exceeded',
          `Cannot suspend: the agent already holds ${snapshots} suspended run(s) using ${bytes} bytes ` +
            `(limits: ${maxSnapshots} runs, ${maxBytes} bytes; this one needs ${size}). Resume or release some first.`,
          { details: { snapshots, bytes, size, maxSnapshots, maxBytes } },
        );
      }
      snapshots++;
      bytes += size;
    },
    free(size) {
      snapshots = Math.max(0, snapshots - 1);
      bytes = Math.max(0, bytes - size);
    },
    get snapshots() {
      return snapshots;
    },
    get bytes() {
      return bytes;
    },
  };
}

/** What {@link createSuspended} needs from its agent. */
export type SuspendHost = {
  name: string;
  ledger: SuspendLedger;
  ttlMs: number;
  now: () => number;
  newId: () => string;
  continueRun(state: RunState, data: JsonValue | undefined, options: ExecuteOptions | undefined): Promise<AgentResult>;
};

/**
 * Snapshots a run and returns its handle. The snapshot counts against the agent's budget until it is resumed,
 * released or expires.
 * @throws AgencyError `suspend_budget_exceeded` when the budget has no room.
 */
export function createSuspended(host: SuspendHost, state: RunState, payload: JsonValue): Suspended {
  const snapshot = JSON.stringify(encodeJson(state));
  const size = utf8ByteLength(snapshot);
  host.ledger.reserve(size);
  const id = host.newId();
  const expiresAt = host.now() + host.ttlMs;
  let status: 'live' | 'used' | 'expired' = 'live';
  const free = (next: 'used' | 'expired') => {
    if (status !== 'live') return;
    status = next;
    clearTimeout(timer);
    host.ledger.free(size);
  };
  const timer = setTimeout(() => free('expired'), host.ttlMs);
  timer.unref();

  return {
    id,
    payload,
    expiresAt: new Date(expiresAt).toISOString(),
    resume(data, options) {
      if (status === 'live' && host.now() >= expiresAt) free('expired');
      if (status === 'used') {
        return Promise.reject(
          new AgencyError('suspension_used', `Suspended run ${id} was already resumed or released`),
        );
      }
      if (status === 'expired') {
        return Promise.reject(
          new AgencyError('suspension_expired', `Suspended run ${id} expired at ${new Date(expiresAt).toISOString()}`),
        );
      }
      free('used');
      return host.continueRun(decodeState(JSON.parse(snapshot)), data, options).then(undefined, (error: unknown) => {
        throw AgencyError.from(error);
      });
    },
    release: () => free('used'),
    serialize: () => ({
      schema: SUSPENDED_RUN_SCHEMA,
      agent: host.name,
      suspendedAt: new Date(host.now()).toISOString(),
      payload,
      state: JSON.parse(snapshot) as unknown,
    }),
  };
}

/** Serializes a running state as a checkpoint: the same document as a suspended run, with a null payload. */
export function checkpointOf(agentName: string, state: RunState, now: number): SerializedRun {
  return {
    schema: SUSPENDED_RUN_SCHEMA,
    agent: agentName,
    suspendedAt: new Date(now).toISOString(),
    payload: null,
    state: JSON.parse(JSON.stringify(encodeJson(state))) as unknown,
  };
}

/**
 * Validates a serialized run and returns its state.
 * @throws AgencyError `suspension_invalid` naming what is wrong.
 */
export function parseSerializedRun(value: unknown, agentName: string): RunState {
  const parsed = serializedRunSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new AgencyError('suspension_invalid', `Not a ${SUSPENDED_RUN_SCHEMA} document: ${issues}`);
  }
  if (parsed.data.agent !== agentName) {
    throw new AgencyError(
      'suspension_invalid',
      `This suspended run belongs to agent "${parsed.data.agent}", not "${agentName}"; resume it with that agent`,
    );
  }
  return decodeJson(parsed.data.state) as RunState;
}

/** Decodes a state snapshot taken by {@link createSuspended}. */
export function decodeState(snapshot: unknown): RunState {
  return decodeJson(snapshot) as RunState;
}
