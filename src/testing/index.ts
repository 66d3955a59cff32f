// agency/testing: models for tests. A scripted model that records every call, and record/replay cassettes of chat and
// embedding models, which read and write files (Node-only). See docs/cassettes.md.
export { CASSETTE_FORMAT, type CassetteHeader } from '../model/cassette/cassette-format.ts';
export { recordEmbeddingModel } from '../model/cassette/record-embedding-model.ts';
export { type RecordModelOptions, recordModel } from '../model/cassette/record-model.ts';
export { type ReplayEmbeddingModel, replayEmbeddingModel } from '../model/cassette/replay-embedding-model.ts';
export { type ReplayModel, type ReplayModelOptions, replayModel } from '../model/cassette/replay-model.ts';
export {
  apiError,
  type ScriptedCall,
  ScriptedModel,
  type ScriptedModelOptions,
  type ScriptReply,
  type ScriptStep,
} from './scripted-model.ts';
export type { ContractCase } from './contract-case.ts';
export { promptStoreContract } from './prompt-store-contract.ts';
export {
  type ContractContext,
  type ContractStore,
  type MakeContractStore,
  memoryStoreContract,
} from './memory-store-contract.ts';
export { HOSTILE_TEXTS } from './memory-contract/hostile-cases.ts';
