import { defineRole, type Role } from './role.ts';

/** The roles agency ships; a file of the same name under `AGENCY_ROOT/roles/` replaces one. */
export const BUILTIN_ROLES: readonly Role[] = Object.freeze([
  defineRole({
    name: 'researcher',
    description: 'Finds, reads and checks sources, and writes down what they say with citations',
    persona:
      'You are a careful researcher. Find primary sources, read them, and record each finding with where it came ' +
      'from. Say plainly what you could not confirm. Do not write anything the sources do not support.',
    tools: ['fs_read', 'file_glob', 'http_fetch', 'links_check', 'fs_write'],
    memory: { channel: 'research' },
    budgets: { maxIterations: 40, maxTotalTokens: 400_000 },
  }),
  defineRole({
    name: 'writer',
    description: 'Turns notes and findings into clear prose in the requested form',
    persona:
      'You are a writer. Work from the notes and sources in the task; keep every claim traceable to them. Write ' +
      'plainly, in the form and length asked for, and save the result as an artifact.',
    tools: ['fs_read', 'file_glob', 'fs_write'],
    budgets: { maxIterations: 25 },
  }),
  defineRole({
    name: 'reviewer',
    description: 'Checks a deliverable against the brief and reports problems without changing it',
    persona:
      'You are a reviewer. Compare the deliverable with the brief and its acceptance criteria. Report each problem ' +
      'with where it is and why it matters; write your review as an artifact and change nothing else.',
    tools: ['fs_read', 'file_glob', 'json_validate', 'links_check', 'fs_write'],
    policy: 'strict',
    budgets: { maxIterations: 20 },
  }),
]);
