import { describe, expect, it } from 'vitest';
import { classifyAddress } from './network-address.ts';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.255.255', 'private'],
    ['fc00::1', 'private'],
    ['fdff:ffff::1', 'private'],
    ['fec0::1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['100.64.0.0', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.0.9', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['2001::1', 'reserved'],
    ['100::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['2001:2::1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.1', 'documentation'],
    ['203.0.113.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['169.254.169.254', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['168.63.129.16', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['not an address', 'invalid'],
  ])('blocks %s as %s', (ip, reason) => {
    expect(classifyAddress(ip)).toMatchObject({ blocked: true, reason });
  });

  it.each([
    ['::ffff:127.0.0.1', 'ipv4-mapped', '127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'ipv4-mapped', '127.0.0.1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'ipv4-mapped', '169.254.169.254', 'metadata'],
    ['::127.0.0.1', 'ipv4-compatible', '127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'nat64', '127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'nat64', '10.0.0.1', 'private'],
    ['2002:7f00:1::', '6to4', '127.0.0.1', 'loopback'],
    ['2002:a9fe:a9fe:1::1', '6to4', '169.254.169.254', 'metadata'],
  ])('blocks %s, which embeds %s %s', (ip, kind, embedded, reason) => {
    expect(classifyAddress(ip)).toMatchObject({ blocked: true, reason, embedded: { kind, address: embedded } });
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows the public address %s', (ip) => {
    expect(classifyAddress(ip)).toMatchObject({ blocked: false, reason: 'public' });
  });

  it('reports the canonical address and the matching range', () => {
    expect(classifyAddress('0177.0.0.1')).toEqual({
      blocked: true,
      reason: 'loopback',
      address: '127.0.0.1',
      range: '127.0.0.0/8',
    });
    expect(classifyAddress('[0:0:0:0:0:ffff:7f00:1]')).toMatchObject({
      address: '::ffff:7f00:1',
      range: '127.0.0.0/8 inside ::ffff:0:0/96',
    });
  });
});
