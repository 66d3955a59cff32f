import { type Cidr, cidr, cidrContains, formatIPv4, formatIp, type ParsedIp, parseIp } from './network-ip.ts';

/** Why an address is or is not refused. `public` is the only reason that is not blocked. */
export type AddressReason =
  | 'public'
  | 'invalid'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'reserved'
  | 'benchmarking'
  | 'documentation'
  | 'metadata';

/** How an IPv4 address was carried inside an IPv6 one. */
export type EmbeddingKind = 'ipv4-mapped' | 'ipv4-compatible' | 'nat64' | '6to4';

/** The verdict of {@link classifyAddress}. */
export type AddressClass = {
  blocked: boolean;
  reason: AddressReason;
  /** The canonical spelling of the address, or the input unchanged when it is not an address. */
  address: string;
  /** The range that matched, e.g. `127.0.0.0/8`. */
  range?: string;
  /** Set when the verdict comes from an IPv4 address embedded in an IPv6 one. */
  embedded?: { kind: EmbeddingKind; address: string };
};

type Range = { block: Cidr; text: string; reason: AddressReason };

function ranges(entries: ReadonlyArray<readonly [string, AddressReason]>): Range[] {
  return entries.map(([text, reason]) => ({ block: cidr(text), text, reason }));
}

// Cloud instance metadata and platform endpoints. They are checked before the wider ranges that contain them so
// that the reason says "metadata", and the allowlist opens them only through an exact entry.
const METADATA = ranges([
  ['169.254.169.254', 'metadata'], // AWS, GCP, Azure, OCI, DigitalOcean, OpenStack
  ['169.254.170.2', 'metadata'], // AWS ECS task credentials
  ['169.254.170.23', 'metadata'], // AWS EKS Pod Identity
  ['100.100.100.200', 'metadata'], // Alibaba Cloud
  ['168.63.129.16', 'metadata'], // Azure WireServer (a public-looking address)
  ['fd00:ec2::254', 'metadata'], // AWS IMDS over IPv6
  ['fd00:ec2::23', 'metadata'], // AWS EKS Pod Identity over IPv6
]);

// IANA IPv4 special-purpose registry, most specific first.
const IPV4 = ranges([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'cgnat'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'reserved'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', 'reserved'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

// IANA IPv6 special-purpose registry, most specific first. Addresses outside 2000::/3 are refused afterwards.
const IPV6 = ranges([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b:1::/48', 'private'],
  ['100::/64', 'reserved'],
  ['2001:2::/48', 'benchmarking'],
  ['2001::/23', 'reserved'],
  ['2001:db8::/32', 'documentation'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'reserved'],
  ['fc00::/7', 'private'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'private'],
  ['ff00::/8', 'multicast'],
]);

const GLOBAL_UNICAST = cidr('2000::/3');
const MAPPED = cidr('::ffff:0:0/96');
const COMPATIBLE = cidr('::/96');
const NAT64 = cidr('64:ff9b::/96');
const SIX_TO_FOUR = cidr('2002::/16');

/**
 * Classifies an IP address for outbound requests. Anything that is not a public unicast address is blocked:
 * loopback, unspecified, private, link-local, CGNAT, multicast, broadcast, reserved, benchmarking, documentation and
 * cloud metadata addresses, in every spelling {@link parseIp} accepts, and IPv4 addresses carried inside IPv6
 * (mapped, compatible, NAT64, 6to4). Input that is not an address is blocked with reason `invalid`.
 *
 * @example
 * classifyAddress('::ffff:7f00:1') // { blocked: true, reason: 'loopback', embedded: { kind: 'ipv4-mapped', ... } }
 */
export function classifyAddress(ip: string): AddressClass {
  const parsed = parseIp(ip);
  if (parsed === undefined) return { blocked: true, reason: 'invalid', address: ip };
  return classifyParsed(parsed);
}

/** {@link classifyAddress} for an address that is already parsed. */
export function classifyParsed(ip: ParsedIp): AddressClass {
  const address = formatIp(ip);
  const metadata = match(METADATA, ip);
  if (metadata) return verdict(address, metadata);
  if (ip.family === 4) return verdict(address, match(IPV4, ip));
  const embedded = classifyEmbedded(ip, address);
  if (embedded) return embedded;
  const range = match(IPV6, ip);
  if (range) return verdict(address, range);
  if (!cidrContains(GLOBAL_UNICAST, ip))
    return { blocked: true, reason: 'reserved', address, range: 'outside 2000::/3' };
  return { blocked: false, reason: 'public', address };
}

/** True when `ip` is one of the cloud metadata addresses. */
export function isMetadataAddress(ip: ParsedIp): boolean {
  return match(METADATA, ip) !== undefined;
}

function classifyEmbedded(ip: ParsedIp, address: string): AddressClass | undefined {
  const low32 = ip.value & 0xffffffffn;
  if (cidrContains(MAPPED, ip)) return fromEmbedded(address, 'ipv4-mapped', low32, MAPPED);
  if (ip.value > 1n && cidrContains(COMPATIBLE, ip)) {
    // Deprecated by RFC 4291; no legitimate destination uses it, so it is refused whatever it embeds.
    const inner = fromEmbedded(address, 'ipv4-compatible', low32, COMPATIBLE);
    return inner.blocked ? inner : { ...inner, blocked: true, reason: 'reserved' };
  }
  if (cidrContains(NAT64, ip)) return fromEmbedded(address, 'nat64', low32, NAT64);
  if (cidrContains(SIX_TO_FOUR, ip)) {
    return fromEmbedded(address, '6to4', (ip.value >> 80n) & 0xffffffffn, SIX_TO_FOUR);
  }
  return undefined;
}

function fromEmbedded(address: string, kind: EmbeddingKind, value: bigint, outer: Cidr): AddressClass {
  const inner = classifyParsed({ family: 4, value });
  const outerText = `${formatIp({ family: 6, value: outer.base })}/${outer.prefix}`;
  const range = inner.range === undefined ? outerText : `${inner.range} inside ${outerText}`;
  return {
    blocked: inner.blocked,
    reason: inner.reason,
    address,
    range,
    embedded: { kind, address: formatIPv4(value) },
  };
}

function match(table: Range[], ip: ParsedIp): Range | undefined {
  return table.find((range) => cidrContains(range.block, ip));
}

function verdict(address: string, range: Range | undefined): AddressClass {
  if (range === undefined) return { blocked: false, reason: 'public', address };
  return { blocked: range.reason !== 'public', reason: range.reason, address, range: range.text };
}
