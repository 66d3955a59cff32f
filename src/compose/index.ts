export {
  createNetwork,
  DEFAULT_ROUTER_INSTRUCTIONS,
  Network,
  type NetworkBudget,
  type NetworkOptions,
} from './network/index.ts';
