export type { NetworkBudget } from './budget.ts';
export { MAX_AGENT_DESCRIPTION_CHARS } from './check-members.ts';
export { MAX_DELEGATION_CHARS } from './delegation-tool.ts';
export { createNetwork, DEFAULT_ROUTER_INSTRUCTIONS, Network, type NetworkOptions } from './network.ts';
