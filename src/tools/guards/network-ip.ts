import { isIP } from 'node:net';

/** An IP address as a number: 32 bits for IPv4, 128 bits for IPv6. */
export type ParsedIp = {
  family: 4 | 6;
  value: bigint;
  /** The IPv6 zone (scope id) after `%`, if one was given. */
  zone?: string;
};

/** A CIDR block such as `10.0.0.0/8` or `fc00::/7`. */
export type Cidr = {
  family: 4 | 6;
  base: bigint;
  prefix: number;
};

const BITS = { 4: 32, 6: 128 } as const;

/**
 * Parses an IP address the way permissive resolvers do, so that no spelling of a blocked address slips through.
 * IPv6 may be bracketed and may carry a zone. IPv4 follows `inet_aton`: one to four parts, each decimal, octal
 * (`0177`) or hex (`0x7f`), the last part filling the remaining bytes (`127.1`, `2130706433`), and one trailing dot.
 * Returns undefined when `text` is not an address in any of these spellings.
 *
 * @example
 * parseIp('0x7f.1') // { family: 4, value: 2130706433n }
 */
export function parseIp(text: string): ParsedIp | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  if (bare.includes(':')) return parseIPv6(bare);
  const value = parseIPv4Loose(bare);
  return value === undefined ? undefined : { family: 4, value: BigInt(value) };
}

/** Parses only the canonical forms `isIP` accepts (dotted quad, RFC 4291 IPv6). */
export function parseIpStrict(text: string): ParsedIp | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return isIP(bare) === 0 ? undefined : parseIp(bare);
}

function parseIPv4Loose(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length > 1 && parts.at(-1) === '') parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const n = parseIPv4Part(part);
    if (n === undefined) return undefined;
    numbers.push(n);
  }
  const last = numbers.pop() ?? 0;
  if (numbers.some((n) => n > 255)) return undefined;
  if (last >= 256 ** (4 - numbers.length)) return undefined;
  return numbers.reduce((sum, n, i) => sum + n * 256 ** (3 - i), 0) + last;
}

function parseIPv4Part(part: string): number | undefined {
  // Long digit strings would only lose precision; no valid part needs more than 34 characters ("0x" + 32 digits).
  if (part.length === 0 || part.length > 34) return undefined;
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]*$/.test(part)) return Number.parseInt(part, 8);
  if (/^[1-9][0-9]*$/.test(part)) return Number.parseInt(part, 10);
  return undefined;
}

function parseIPv6(text: string): ParsedIp | undefined {
  const percent = text.indexOf('%');
  const body = percent === -1 ? text : text.slice(0, percent);
  const zone = percent === -1 ? undefined : text.slice(percent + 1);
  if (zone === '' || !/^[0-9a-f:.]+$/i.test(body)) return undefined;
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const compressed = halves.length === 2;
  const head = parseGroups(halves[0] ?? '', !compressed);
  const tail = compressed ? parseGroups(halves[1] ?? '', true) : [];
  if (head === undefined || tail === undefined) return undefined;
  const missing = 8 - head.length - tail.length;
  if (compressed ? missing < 1 : missing !== 0) return undefined;
  const groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  const value = groups.reduce((acc, group) => (acc << 16n) | BigInt(group), 0n);
  return zone === undefined ? { family: 6, value } : { family: 6, value, zone };
}

function parseGroups(text: string, dottedTailAllowed: boolean): number[] | undefined {
  if (text === '') return [];
  const parts = text.split(':');
  const groups: number[] = [];
  for (const [index, part] of parts.entries()) {
    if (part.includes('.')) {
      // RFC 4291 allows a dotted quad only as the last 32 bits, and only in strict decimal form.
      if (!dottedTailAllowed || index !== parts.length - 1 || isIP(part) !== 4) return undefined;
      const v4 = parseIPv4Loose(part) ?? 0;
      groups.push(Math.floor(v4 / 0x10000), v4 % 0x10000);
    } else {
      if (!/^[0-9a-f]{1,4}$/i.test(part)) return undefined;
      groups.push(Number.parseInt(part, 16));
    }
  }
  return groups;
}

/** Formats an address canonically: dotted quad for IPv4, RFC 5952 for IPv6 (zone kept). */
export function formatIp(ip: ParsedIp): string {
  if (ip.family === 4) return formatIPv4(ip.value);
  const groups: number[] = [];
  for (let shift = 112n; shift >= 0n; shift -= 16n) groups.push(Number((ip.value >> shift) & 0xffffn));
  const zone = ip.zone === undefined ? '' : `%${ip.zone}`;
  return compressGroups(groups) + zone;
}

/** Formats a 32-bit value as a dotted quad. */
export function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

function compressGroups(groups: number[]): string {
  let best = { start: -1, length: 0 };
  let run = { start: -1, length: 0 };
  for (const [i, group] of groups.entries()) {
    if (group !== 0) {
      run = { start: -1, length: 0 };
      continue;
    }
    run = run.start === -1 ? { start: i, length: 1 } : { start: run.start, length: run.length + 1 };
    if (run.length > best.length) best = run;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.length < 2) return hex.join(':');
  const head = hex.slice(0, best.start).join(':');
  const tail = hex.slice(best.start + best.length).join(':');
  return `${head}::${tail}`;
}

/**
 * Parses a CIDR block (`10.0.0.0/8`, `fd00::/8`) or a single address (taken as /32 or /128). Only canonical
 * address spellings are accepted, and host bits must be zero, so a typo cannot silently widen the block.
 */
export function parseCidr(text: string): Cidr | { error: string } {
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const ip = parseIpStrict(addressText);
  if (ip === undefined) return { error: `"${addressText}" is not an IPv4 or IPv6 address` };
  if (ip.zone !== undefined) return { error: 'zone ids (%eth0) are not allowed in CIDRs' };
  const bits = BITS[ip.family];
  const prefixText = slash === -1 ? String(bits) : text.slice(slash + 1);
  const prefix = /^[0-9]{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (!(prefix >= 0 && prefix <= bits)) return { error: `prefix "/${prefixText}" must be 0..${bits}` };
  const hostBits = BigInt(bits - prefix);
  if ((ip.value >> hostBits) << hostBits !== ip.value) {
    const base = formatIp({ family: ip.family, value: (ip.value >> hostBits) << hostBits });
    return { error: `host bits are set; did you mean "${base}/${prefix}"?` };
  }
  return { family: ip.family, base: ip.value, prefix };
}

/** True when `ip` lies inside `cidr`. Addresses of the other family never match. */
export function cidrContains(cidr: Cidr, ip: ParsedIp): boolean {
  if (cidr.family !== ip.family) return false;
  const hostBits = BigInt(BITS[cidr.family] - cidr.prefix);
  return ip.value >> hostBits === cidr.base >> hostBits;
}

/** Parses a CIDR written in this module's own tables; a bad literal is a programming error. */
export function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if ('error' in parsed) throw new Error(`bad CIDR literal ${text}: ${parsed.error}`);
  return parsed;
}
