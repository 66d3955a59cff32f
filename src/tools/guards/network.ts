// The network guard: the only way agency tools reach the network. See docs/network.md.
export type { AddressClass, AddressReason, EmbeddingKind } from './network-address.ts';
export { classifyAddress } from './network-address.ts';
export type { AllowEntry, Allowlist } from './network-allowlist.ts';
export { parseAllowlist } from './network-allowlist.ts';
export type { GuardedFetchOptions, GuardedResponse, HttpMethod } from './network-fetch.ts';
export { guardedFetch } from './network-fetch.ts';
export type { ParsedIp } from './network-ip.ts';
export { parseIp } from './network-ip.ts';
export type { NetworkPolicy } from './network-policy.ts';
export { NETWORK_DEFAULTS } from './network-policy.ts';
export type { NetworkLookup, ResolvedAddress } from './network-resolve.ts';
export { systemLookup } from './network-resolve.ts';
export type { UrlTarget } from './network-url.ts';
export { checkUrl } from './network-url.ts';
