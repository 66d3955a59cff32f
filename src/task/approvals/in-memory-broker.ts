import { abortedError } from '../../core/clock.ts';
import { canonicalJson } from '../../core/canonical-json.ts';
import { AgencyError } from '../../core/errors.ts';
import { type ApprovalDecision, type ApprovalRequest, approvalRequestSchema } from '../contracts/approvals.ts';
import type { ApprovalBroker, ApprovalOutcome, AwaitApprovalOptions, InvalidDecision } from './broker.ts';
import type { ApprovalMode } from './file-broker.ts';
import {
  bindingOf,
  checkDecision,
  checkDecisionText,
  conflictProblem,
  type DecisionCheck,
  sameDecision,
  toOutcome,
} from './validate-decision.ts';

/** Options for {@link createInMemoryBroker}. */
export type InMemoryBrokerOptions = {
  /** Milliseconds since the epoch; decides expiry. @default Date.now */
  now?: () => number;
  /** How often a waiting `await` checks for expiry. @default 250 */
  pollMs?: number;
  /** `auto` approves every request at once with `approved_by: "auto"`. @default 'file' */
  mode?: ApprovalMode;
};

/** An {@link ApprovalBroker} held in memory, for tests; `decide` plays the human. */
export type InMemoryBroker = ApprovalBroker & {
  /**
   * Records a decision as a human would. A string is taken as the text of a decision file, so tests can send bad
   * JSON; anything else is checked as the parsed file. Same rules as the file broker: an invalid or conflicting
   * decision is reported to every waiting `await` (which keeps waiting) and returned; a valid one returns undefined.
   */
  decide(id: string, decision: unknown): InvalidDecision | undefined;
};

type Waiter = { report: (invalid: InvalidDecision, key: string) => void; settle: (outcome: ApprovalOutcome) => void };

type BrokerState = {
  readonly requests: Map<string, ApprovalRequest>;
  readonly accepted: Map<string, ApprovalDecision>;
  readonly latestInvalid: Map<string, { invalid: InvalidDecision; key: string }>;
  readonly waiters: Map<string, Set<Waiter>>;
  readonly now: () => number;
  readonly pollMs: number;
  readonly mode: ApprovalMode;
};

/**
 * Creates an in-memory approval broker with the file broker's semantics: idempotent submit, decisions bound to
 * `plan_sig` / `args_digest`, the first valid decision stands, expiry at `expires_at`.
 *
 * @example
 * const broker = createInMemoryBroker();
 * await broker.submit(request);
 * const waiting = broker.await(request.id);
 * broker.decide(request.id, { id: request.id, decision: 'approved', approved_by: 'ana', timestamp, plan_sig });
 * await waiting; // { decision: 'approved', decidedBy: 'ana', … }
 */
export function createInMemoryBroker({ now = Date.now, pollMs = 250, mode = 'file' }: InMemoryBrokerOptions = {}) {
  const state: BrokerState = {
    requests: new Map(),
    accepted: new Map(),
    latestInvalid: new Map(),
    waiters: new Map(),
    now,
    pollMs,
    mode,
  };

  const broker: InMemoryBroker = {
    async submit(request) {
      submitRequest(state, request);
    },

    decide(id, raw) {
      return recordDecision(state, id, raw);
    },

    await(id, options) {
      return awaitInMemory(state, id, options);
    },

    async get(id) {
      return snapshotOf(state, id);
    },

    async pending() {
      const { requests, accepted } = state;
      return [...requests.values()].filter((request) => !accepted.has(request.id)).sort((a, b) => cmp(a.id, b.id));
    },
  };

  return broker;
}

function submitRequest({ requests }: BrokerState, request: ApprovalRequest): void {
  const parsed = approvalRequestSchema.safeParse(request);
  if (!parsed.success) throw new AgencyError('invalid_argument', `Not a valid approval request: ${parsed.error}`);
  const existing = requests.get(request.id);
  if (existing === undefined) return void requests.set(request.id, parsed.data);
  if (canonicalJson(existing) !== canonicalJson(parsed.data)) {
    throw new AgencyError('invalid_argument', `A different request already has id ${request.id}`);
  }
}

function acceptDecision({ accepted, waiters }: BrokerState, decision: ApprovalDecision): void {
  accepted.set(decision.id, decision);
  for (const waiter of waiters.get(decision.id) ?? []) waiter.settle(toOutcome(decision));
}

function recordDecision(state: BrokerState, id: string, raw: unknown): InvalidDecision | undefined {
  const request = state.requests.get(id);
  const check: DecisionCheck =
    typeof raw === 'string' ? checkDecisionText(raw, id, request) : checkDecision(raw, id, request);
  const first = state.accepted.get(id);
  if (first === undefined && check.ok) return void acceptDecision(state, check.decision);
  if (first !== undefined && check.ok && sameDecision(check.decision, first)) return undefined;
  const problem = check.ok ? conflictProblem(first as ApprovalDecision) : check.problem;
  const invalid: InvalidDecision = { id, file: decisionFileOf(id), problem };
  const key = keyOf(raw);
  if (first === undefined) state.latestInvalid.set(id, { invalid, key });
  for (const waiter of state.waiters.get(id) ?? []) waiter.report(invalid, key);
  return invalid;
}

function snapshotOf({ requests, accepted, latestInvalid }: BrokerState, id: string) {
  const request = requests.get(id);
  const decision = accepted.get(id);
  const invalid = decision === undefined ? latestInvalid.get(id)?.invalid : undefined;
  return {
    ...(request === undefined ? {} : { request }),
    ...(decision === undefined ? {} : { decision }),
    ...(invalid === undefined ? {} : { invalid }),
  };
}

async function awaitInMemory(state: BrokerState, id: string, { signal, onInvalid }: AwaitApprovalOptions = {}) {
  const request = state.requests.get(id);
  if (request === undefined) throw new AgencyError('approval_not_found', `No approval request has id ${id}`);
  if (signal?.aborted) throw abortedError(signal);
  const first = state.accepted.get(id);
  if (first !== undefined) return toOutcome(first);
  if (state.mode === 'auto' && !state.latestInvalid.has(id)) {
    acceptDecision(state, systemDecision(request, 'approved', 'auto', state.now()));
    return toOutcome(state.accepted.get(id) as ApprovalDecision);
  }
  return waitForDecision(state, id, request, { signal, onInvalid });
}

// Registers a waiter that settles on the first accepted decision (or expiry) and reports each distinct invalid one.
function waitForDecision(
  state: BrokerState,
  id: string,
  request: ApprovalRequest,
  { signal, onInvalid }: AwaitApprovalOptions,
): Promise<ApprovalOutcome> {
  const { waiters, latestInvalid, now } = state;
  return new Promise<ApprovalOutcome>((resolve, reject) => {
    const reported = new Set<string>();
    const done = () => {
      clearInterval(timer);
      signal?.removeEventListener('abort', onAbort);
      waiters.get(id)?.delete(waiter);
    };
    const onAbort = () => {
      done();
      reject(abortedError(signal));
    };
    const waiter: Waiter = {
      report(invalid, key) {
        if (reported.has(key)) return;
        reported.add(key);
        onInvalid?.(invalid);
      },
      settle(outcome) {
        done();
        resolve(outcome);
      },
    };
    const checkExpiry = () => {
      if (now() >= Date.parse(request.expires_at))
        acceptDecision(state, systemDecision(request, 'expired', 'agency', now()));
    };
    const timer = setInterval(checkExpiry, state.pollMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    waiters.set(id, (waiters.get(id) ?? new Set()).add(waiter));
    const pendingInvalid = latestInvalid.get(id);
    if (pendingInvalid !== undefined) waiter.report(pendingInvalid.invalid, pendingInvalid.key);
    checkExpiry();
  });
}

function decisionFileOf(id: string): string {
  return `progress/approvals/decisions/${id}.json`;
}

function systemDecision(
  request: ApprovalRequest,
  decision: 'approved' | 'expired',
  by: 'auto' | 'agency',
  at: number,
): ApprovalDecision {
  return { id: request.id, decision, approved_by: by, timestamp: new Date(at).toISOString(), ...bindingOf(request) };
}

function keyOf(raw: unknown): string {
  if (typeof raw === 'string') return `text:${raw}`;
  try {
    return `json:${canonicalJson(raw)}`;
  } catch {
    return `other:${String(raw)}`;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
