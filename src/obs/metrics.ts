import {
  type Attributes,
  type Counter,
  createNoopMeter,
  type Histogram,
  type Meter,
  metrics,
} from '@opentelemetry/api';
import { TELEMETRY_SCOPE } from './telemetry.ts';

// The bucket boundaries the GenAI conventions give for gen_ai.client.token.usage.
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];

type Instruments = {
  phase: Counter;
  approval: Counter;
  finish: Counter;
  tokens: Histogram;
  cost: Counter;
};

// Instruments are made once per meter: a meter provider registered later (or again, in tests) gets new ones.
let made: { meter: Meter; instruments: Instruments } | undefined;

// The API's no-op meter, which every meter of the no-op provider is.
const NOOP_METER = createNoopMeter();

/** Whether metrics are recorded: false until a meter provider is registered. */
export function metering(): boolean {
  return metrics.getMeter(TELEMETRY_SCOPE) !== NOOP_METER;
}

function instruments(): Instruments {
  const meter = metrics.getMeter(TELEMETRY_SCOPE);
  if (made?.meter === meter) return made.instruments;
  const instruments: Instruments = {
    phase: meter.createCounter('agent.phase', { description: 'Governed phase steps started, by phase' }),
    approval: meter.createCounter('agent.approval', { description: 'Approval decisions, by outcome' }),
    finish: meter.createCounter('agent.finish_reason', {
      description: 'Agent runs and governed tasks ended, by reason',
    }),
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Tokens used per model call, by model and token type',
      unit: '{token}',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    cost: meter.createCounter('agency.client.cost', { description: 'Cost of model calls, by model', unit: 'USD' }),
  };
  made = { meter, instruments };
  return instruments;
}

/** Counts a governed phase step (`agent.phase`, attribute `agency.phase`). */
export function countPhase(phase: string): void {
  instruments().phase.add(1, { 'agency.phase': phase });
}

/** Counts an approval decision (`agent.approval`, attributes `agency.approval.outcome` and `.type`). */
export function countApproval(outcome: string, type: string): void {
  instruments().approval.add(1, { 'agency.approval.outcome': outcome, 'agency.approval.type': type });
}

/** Counts how a run ended (`agent.finish_reason`, attribute `agency.finish_reason`). */
export function countFinish(reason: string, attributes: Attributes): void {
  instruments().finish.add(1, { ...attributes, 'agency.finish_reason': reason });
}

/** Records a model call's tokens (`gen_ai.client.token.usage`, `gen_ai.token.type` input and output). */
export function recordTokens(usage: { input: number; output: number }, model: Attributes): void {
  const { tokens } = instruments();
  tokens.record(usage.input, { ...model, 'gen_ai.token.type': 'input' });
  tokens.record(usage.output, { ...model, 'gen_ai.token.type': 'output' });
}

/** Adds a priced model call's cost in US dollars (`agency.client.cost`, by `gen_ai.response.model`). */
export function countCost(dollars: number | undefined, model: string): void {
  if (dollars === undefined || dollars <= 0) return;
  instruments().cost.add(dollars, { 'gen_ai.response.model': model });
}
