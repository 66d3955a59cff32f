// agency/compose: agents made of agents. See docs/compose.md.
export { createWorkflow, resumeWorkflow, runWorkflow, Workflow } from './workflow/index.ts';
