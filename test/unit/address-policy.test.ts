import { BlockList } from 'node:net';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { addressBytes, classifyAddress, isLoopback, refusedRanges } from '../../functions/library/address-policy.ts';

const strict = { allowLoopback: false };
const loopbackAllowed = { allowLoopback: true };

describe('address policy', () => {
  it.each([
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.254', 'private'],
    ['192.168.1.1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['100.127.255.255', 'carrier-grade NAT'],
    ['192.0.0.8', 'IETF'],
    ['192.0.2.10', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.99', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['fc00::1', 'unique-local'],
    ['fd12:3456:789a::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['2001::1', 'IETF protocol assignment'],
    ['2001:2::1', 'IETF protocol assignment'],
    ['2002:a00:1::1', '6to4'],
    ['100::1', 'discard-only'],
    ['64:ff9b:1::1', 'local-use NAT64'],
    ['::10.0.0.1', 'IPv4-compatible'],
    ['4000::1', 'reserved'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a00:1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['0:0:0:0:0:ffff:7f00:1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'link-local'],
  ])('refuses %s (%s)', (address, what) => {
    const verdict = classifyAddress(address, strict);
    expect(verdict.allowed).toBe(false);
    if (!verdict.allowed) expect(verdict.reason).toContain(what);
    if (!verdict.allowed) expect(verdict.reason).toContain(address);
  });

  it.each([
    '93.184.215.14',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '172.15.255.255',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700::6810:84e5',
    '2a00:1450:4001:80b::200e',
    '64:ff9b::808:808',
  ])('allows the public address %s', (address) => {
    expect(classifyAddress(address, strict)).toMatchObject({ allowed: true, address });
  });

  it('judges an IPv4-mapped address by its IPv4 address and connects over IPv4', () => {
    expect(classifyAddress('::ffff:8.8.8.8', strict)).toEqual({ allowed: true, address: '8.8.8.8', family: 4 });
    expect(classifyAddress('::ffff:808:808', strict)).toEqual({ allowed: true, address: '8.8.8.8', family: 4 });
  });

  it('allows loopback only when the policy says so, and nothing else with it', () => {
    expect(classifyAddress('127.0.0.1', loopbackAllowed)).toEqual({ allowed: true, address: '127.0.0.1', family: 4 });
    expect(classifyAddress('::1', loopbackAllowed)).toEqual({ allowed: true, address: '::1', family: 6 });
    expect(classifyAddress('::ffff:127.0.0.1', loopbackAllowed)).toEqual({
      allowed: true,
      address: '127.0.0.1',
      family: 4,
    });
    for (const address of ['10.0.0.1', '169.254.169.254', 'fe80::1', 'fc00::1', '0.0.0.0', '::']) {
      expect(classifyAddress(address, loopbackAllowed).allowed).toBe(false);
    }
  });

  it('refuses text that is not a plain IP address', () => {
    for (const text of [
      'localhost',
      '',
      '127.1',
      '0x7f.0.0.1',
      '010.0.0.1',
      '1.2.3.4.5',
      'fe80::1%eth0',
      '::ffff:10.0.0.1%0',
      '[::1]',
    ]) {
      expect(classifyAddress(text, loopbackAllowed).allowed).toBe(false);
    }
  });

  it('parses IPv6 spellings to the same bytes', () => {
    const expected = [0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0x01];
    for (const text of [
      '2001:db8::a00:1',
      '2001:DB8:0:0:0:0:0a00:0001',
      '2001:db8::10.0.0.1',
      '2001:db8:0::0:10.0.0.1',
    ]) {
      expect([...(addressBytes(text) ?? [])]).toEqual(expected);
    }
    expect([...(addressBytes('::') ?? [])]).toEqual(Array.from({ length: 16 }, () => 0));
    expect([...(addressBytes('1::') ?? [])]).toEqual([0, 1, ...Array.from({ length: 14 }, () => 0)]);
  });

  it('agrees with node:net BlockList on every refused range (random addresses)', () => {
    const blockList = new BlockList();
    for (const { cidr, family } of refusedRanges) {
      const [network = '', prefix = ''] = cidr.split('/');
      blockList.addSubnet(network, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
    }
    const nearRanges = fc.constantFrom(...refusedRanges.filter((r) => r.family === 4).map((r) => r.cidr.split('.')[0]));
    const ipv4 = fc.oneof(
      fc.ipV4(),
      fc.tuple(nearRanges, fc.nat(255), fc.nat(255), fc.nat(255)).map((parts) => parts.join('.')),
    );
    fc.assert(
      fc.property(ipv4, (address) => {
        expect(classifyAddress(address, strict).allowed).toBe(!blockList.check(address, 'ipv4'));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.ipV6(), (address) => {
        const bytes = addressBytes(address);
        if (!bytes) return;
        // The mapped and NAT64 forms are judged by their IPv4 part, and non-2000::/3 space is refused as a whole.
        const embedsIpv4 =
          bytes.slice(0, 12).every((b, i) => b === (i < 10 ? 0 : 0xff)) ||
          (bytes[0] === 0 &&
            bytes[1] === 0x64 &&
            bytes[2] === 0xff &&
            bytes[3] === 0x9b &&
            bytes.slice(4, 12).every((b) => b === 0));
        if (embedsIpv4 || (bytes[0]! & 0xe0) !== 0x20) return;
        expect(classifyAddress(address, strict).allowed).toBe(!blockList.check(address, 'ipv6'));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('loopback (the only addresses that take any port when PULL_ALLOW_LOOPBACK is on)', () => {
  it('is 127.0.0.0/8, ::1 and their mapped forms, nothing else', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])
      expect(isLoopback(address), address).toBe(true);
    for (const address of [
      '128.0.0.1',
      '10.0.0.1',
      '::2',
      '::ffff:10.0.0.1',
      '64:ff9b::7f00:1',
      'localhost',
      '93.184.215.14',
    ])
      expect(isLoopback(address), address).toBe(false);
  });
});
