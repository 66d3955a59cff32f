// Approvals: the broker port, the file and in-memory brokers, and the helper that writes human decisions.

export type { ApprovalBroker, ApprovalOutcome, AwaitApprovalOptions, InvalidDecision } from './broker.ts';
export { decide, type DecideOptions } from './decide.ts';
export { type ApprovalMode, createFileBroker, type FileBroker, type FileBrokerOptions } from './file-broker.ts';
export { createInMemoryBroker, type InMemoryBroker, type InMemoryBrokerOptions } from './in-memory-broker.ts';
export { bindingOf, checkDecision, checkDecisionText, type DecisionCheck } from './validate-decision.ts';
