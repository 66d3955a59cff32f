// Per-tool credentials: loaded from the environment, files or callbacks, and mounted only while their tool runs.
// Node-only; import from `agency/credentials`. See docs/policy.md.
export {
  type CredentialBroker,
  type CredentialBrokerOptions,
  type CredentialSpec,
  createCredentialBroker,
  type ToolCredentials,
} from './credential-broker.ts';
export {
  type CredentialSource,
  callback,
  env,
  type FileSourceOptions,
  file,
  type SourceContext,
} from './credential-source.ts';
export { toolCredentials, wrapToolWithCredentials } from './credential-tool.ts';
