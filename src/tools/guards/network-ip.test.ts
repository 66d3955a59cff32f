import { describe, expect, it } from 'vitest';
import { cidrContains, formatIp, parseCidr, parseIp, parseIpStrict } from './network-ip.ts';

const canonical = (text: string) => {
  const ip = parseIp(text);
  return ip === undefined ? undefined : formatIp(ip);
};

describe('parseIp', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0x7f.0x0.0x0.0x1', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0X7F.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['0177.0x0.0.1', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['169.254.43518', '169.254.169.254'],
    ['4294967295', '255.255.255.255'],
  ])('reads the IPv4 spelling %s as %s', (input, expected) => {
    expect(canonical(input)).toBe(expected);
  });

  it.each([
    ['::1', '::1'],
    ['[::1]', '::1'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['::', '::'],
    ['::ffff:127.0.0.1', '::ffff:7f00:1'],
    ['64:ff9b::127.0.0.1', '64:ff9b::7f00:1'],
    ['2001:DB8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:0:0:0:2:1', '2001:db8::2:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
    ['1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8'],
    ['1::', '1::'],
  ])('reads the IPv6 spelling %s as %s', (input, expected) => {
    expect(canonical(input)).toBe(expected);
  });

  it.each([
    '',
    '.',
    '1.2.3.4.5',
    '256.0.0.1',
    '4294967296',
    '08.0.0.1',
    '1..2',
    '0x1g',
    'example.com',
    '127.0.0.1 ',
    '1::2::3',
    '1.2.3.4::',
    '::1.2.3',
    ':::',
    '1:2:3:4:5:6:7:8:9',
    '12345::',
    'fe80::1%',
    '::0177.0.0.1',
  ])('refuses %j', (input) => {
    expect(parseIp(input)).toBeUndefined();
  });

  it('parseIpStrict accepts only canonical forms', () => {
    expect(parseIpStrict('127.0.0.1')).toEqual({ family: 4, value: 0x7f000001n });
    expect(parseIpStrict('127.1')).toBeUndefined();
    expect(parseIpStrict('0x7f.0.0.1')).toBeUndefined();
    expect(parseIpStrict('[::1]')?.value).toBe(1n);
  });
});

describe('parseCidr', () => {
  it('parses blocks and single addresses', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ family: 4, base: 0x0a000000n, prefix: 8 });
    expect(parseCidr('127.0.0.1')).toEqual({ family: 4, base: 0x7f000001n, prefix: 32 });
    expect(parseCidr('fd00::/8')).toMatchObject({ family: 6, prefix: 8 });
    expect(parseCidr('::1')).toMatchObject({ family: 6, base: 1n, prefix: 128 });
  });

  it('explains what is wrong with a bad CIDR', () => {
    expect(parseCidr('10.0.0.1/8')).toEqual({ error: 'host bits are set; did you mean "10.0.0.0/8"?' });
    expect(parseCidr('10.0.0.0/33')).toEqual({ error: 'prefix "/33" must be 0..32' });
    expect(parseCidr('127.1/32')).toEqual({ error: '"127.1" is not an IPv4 or IPv6 address' });
    expect(parseCidr('fe80::%eth0/64')).toMatchObject({ error: expect.stringContaining('zone') });
  });

  it('matches only addresses of the same family inside the block', () => {
    const block = parseCidr('172.16.0.0/12');
    if ('error' in block) throw new Error(block.error);
    expect(cidrContains(block, parseIp('172.31.255.255')!)).toBe(true);
    expect(cidrContains(block, parseIp('172.32.0.0')!)).toBe(false);
    expect(cidrContains(block, parseIp('::ffff:172.16.0.1')!)).toBe(false);
  });
});
