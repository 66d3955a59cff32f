// agency/compose: agents made of agents. See docs/compose.md.
export {
  type AgentStep,
  createWorkflow,
  type DurableWorkflowOptions,
  type FunctionStep,
  resumeWorkflow,
  runWorkflow,
  type StepContext,
  type StepKind,
  type StepRetry,
  type ToolStep,
  Workflow,
  type WorkflowEvent,
  type WorkflowOptions,
  type WorkflowStep,
} from './workflow/index.ts';
export {
  createNetwork,
  DEFAULT_ROUTER_INSTRUCTIONS,
  Network,
  type NetworkBudget,
  type NetworkOptions,
} from './network/index.ts';
