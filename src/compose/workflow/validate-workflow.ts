import { AgencyError } from '../../core/errors.ts';
import type { WorkflowOptions, WorkflowStep } from './types.ts';

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/**
 * Checks a workflow definition: its name, each step's id and kind, duplicate ids, dependencies on unknown steps,
 * and cycles. Returns the steps in an order where each comes after the steps it depends on.
 * @throws AgencyError `invalid_argument` naming the step and saying how to fix it.
 */
export function validateWorkflow({ name, steps, concurrency }: WorkflowOptions): WorkflowStep[] {
  const where = `workflow "${String(name)}"`;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw invalid(`${where}: the name must be 1 to 64 letters, digits, "_", "." or "-"`);
  }
  if (!Array.isArray(steps) || steps.length === 0) throw invalid(`${where}: give at least one step in "steps"`);
  if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1)) {
    throw invalid(`${where}: "concurrency" must be a whole number of at least 1, got ${String(concurrency)}`);
  }
  const byId = new Map<string, WorkflowStep>();
  steps.forEach((step, index) => {
    checkStep(where, step, index);
    if (byId.has(step.id)) throw invalid(`${where}: two steps have the id "${step.id}"; give each step its own id`);
    byId.set(step.id, step);
  });
  for (const step of steps) {
    for (const dependency of step.dependsOn ?? []) {
      if (!byId.has(dependency)) {
        throw invalid(
          `${where}: step "${step.id}" depends on "${dependency}", which is not a step of this workflow ` +
            `(steps: ${[...byId.keys()].join(', ')})`,
        );
      }
    }
  }
  return topologicalOrder(where, steps, byId);
}

function checkStep(where: string, step: WorkflowStep, index: number): void {
  if (typeof step !== 'object' || step === null) throw invalid(`${where}: steps[${index}] is not a step object`);
  if (typeof step.id !== 'string' || !NAME.test(step.id)) {
    throw invalid(`${where}: steps[${index}].id must be 1 to 64 letters, digits, "_", "." or "-"`);
  }
  const kinds = ['agent', 'tool', 'run'].filter((key) => key in step);
  if (kinds.length !== 1) {
    throw invalid(
      `${where}: step "${step.id}" must have exactly one of "agent", "tool" or "run" (it has ${kinds.length})`,
    );
  }
  if (step.dependsOn !== undefined && !Array.isArray(step.dependsOn)) {
    throw invalid(`${where}: step "${step.id}": "dependsOn" must be an array of step ids`);
  }
  if (step.dependsOn?.includes(step.id)) throw invalid(`${where}: step "${step.id}" depends on itself`);
  const attempts = step.retry?.attempts;
  if (attempts !== undefined && !(Number.isInteger(attempts) && attempts >= 1 && attempts <= 100)) {
    throw invalid(`${where}: step "${step.id}": "retry.attempts" must be a whole number from 1 to 100`);
  }
}

// Kahn's algorithm in declaration order, so the order is stable; what is left over lies on a cycle.
function topologicalOrder(where: string, steps: readonly WorkflowStep[], byId: Map<string, WorkflowStep>) {
  const order: WorkflowStep[] = [];
  const placed = new Set<string>();
  let progress = true;
  while (progress && order.length < steps.length) {
    progress = false;
    for (const step of steps) {
      if (placed.has(step.id) || !(step.dependsOn ?? []).every((id) => placed.has(id))) continue;
      placed.add(step.id);
      order.push(step);
      progress = true;
    }
  }
  if (order.length === steps.length) return order;
  const cycle = findCycle(
    steps.filter((step) => !placed.has(step.id)),
    byId,
  );
  throw invalid(`${where}: the steps depend on each other in a cycle: ${cycle.join(' → ')}; remove one dependency`);
}

function findCycle(left: WorkflowStep[], byId: Map<string, WorkflowStep>): string[] {
  const path: string[] = [];
  let current: WorkflowStep | undefined = left[0];
  while (current && !path.includes(current.id)) {
    path.push(current.id);
    const next: string | undefined = (current.dependsOn ?? []).find((id) => left.some((step) => step.id === id));
    current = next === undefined ? undefined : byId.get(next);
  }
  return current ? [...path.slice(path.indexOf(current.id)), current.id] : path;
}

function invalid(message: string): AgencyError {
  return new AgencyError('invalid_argument', message);
}
