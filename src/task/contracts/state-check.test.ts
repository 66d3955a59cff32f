import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { sampleState } from '../../../test/support/sample-state.ts';
import { findStateProblem } from './state-check.ts';
import { type StateFile, stateSchema } from './state.ts';

const base = sampleState({ approved_plan_sig: null, last_seq: 12 });

const VALUES: unknown[] = [
  undefined,
  null,
  0,
  -1,
  1.5,
  -0.5,
  2 ** 53 + 2,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  '',
  'x',
  'task_x',
  'b'.repeat(64),
  'B'.repeat(64),
  '2025-02-30T00:00:00Z',
  '2024-02-29T23:59:59.5Z',
  '2025-01-02 03:04:05Z',
  'running',
  'completed',
  'budget.cost',
  'agent.state.v1',
  true,
  {},
  [],
];

type Mutant = { path: string[]; value: unknown };

// Every leaf and object of the state replaced by every value above, plus an unknown key at every level.
function* mutants(value: unknown, path: string[] = []): Generator<Mutant> {
  for (const candidate of VALUES) yield { path, value: candidate };
  if (value === null || typeof value !== 'object') return;
  yield { path: [...path, 'extra'], value: 1 };
  for (const [key, child] of Object.entries(value)) yield* mutants(child, [...path, key]);
}

function mutate(state: StateFile, { path, value }: Mutant): unknown {
  if (path.length === 0) return value;
  const copy = structuredClone(state) as unknown as Record<string, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string, unknown>;
  target[path.at(-1) as string] = value;
  return copy;
}

function fieldOrInside(path: string[]): RegExp {
  return new RegExp(`^"${path.join('\\.')}(\\.[a-z_]+)?"$`);
}

describe('findStateProblem', () => {
  it('accepts a valid state', () => {
    expect(findStateProblem(base)).toBeUndefined();
  });

  // It accepts exactly the states that zod reads back unchanged. zod drops an unknown key in a nested object where
  // the compiled check refuses it, which is stricter, never looser.
  it('agrees with the zod schema on every mutant of a state, and names the field it refuses', () => {
    let refused = 0;
    let accepted = 0;
    for (const mutant of mutants(base)) {
      const state = mutate(base, mutant);
      const problem = findStateProblem(state);
      const label = `${mutant.path.join('.') || '(root)'} = ${String(mutant.value)}`;
      const parsed = stateSchema.safeParse(state);
      const readBackUnchanged = parsed.success && isDeepStrictEqual(parsed.data, state);
      expect(problem === undefined, label).toBe(readBackUnchanged);
      if (problem === undefined) {
        accepted++;
        continue;
      }
      refused++;
      // The field refused is the one mutated, or one inside it (a required key of an object put in its place).
      if (mutant.path.length > 0) expect(problem.field, label).toMatch(fieldOrInside(mutant.path));
    }
    expect(refused).toBeGreaterThan(500);
    expect(accepted).toBeGreaterThan(50);
  });

  it('says what is wrong in words', () => {
    expect(findStateProblem({ ...base, usage: { ...base.usage, cost_usd: Number.NaN } })).toEqual({
      field: '"usage.cost_usd"',
      message: 'is invalid: must be a finite number',
    });
    expect(findStateProblem({ ...base, updated_at: 'yesterday' })?.message).toBe(
      'is invalid: is not in the expected format',
    );
    expect(findStateProblem({ ...base, phase: undefined })).toEqual({ field: '"phase"', message: 'is missing' });
    expect(findStateProblem({ ...base, surprise: 1 })).toEqual({ field: '"surprise"', message: 'is not allowed' });
    expect(findStateProblem('state')).toEqual({ field: 'the state', message: 'is invalid: must be object' });
  });
});
