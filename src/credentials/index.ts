// Per-tool credentials: loaded from the environment, files or callbacks, and mounted only while their tool runs.
// Node-only; import from `agency/credentials`. The tool wrapper, `wrapToolWithCredentials`, is in `agency/tools`.
// See docs/policy.md.
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
