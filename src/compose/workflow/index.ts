// Workflows: a durable DAG of steps (agents, tools, functions) that is itself an Agent. See docs/compose.md.
export type { WorkflowEvent } from '../../agent/types.ts';
export { type DurableWorkflowOptions, resumeWorkflow, runWorkflow } from './durable-run.ts';
export type {
  AgentStep,
  FunctionStep,
  StepContext,
  StepKind,
  StepRetry,
  ToolStep,
  WorkflowOptions,
  WorkflowStep,
} from './types.ts';
export { createWorkflow, Workflow } from './workflow.ts';
