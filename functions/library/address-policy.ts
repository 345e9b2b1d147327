/**
 * Which IP addresses the service may fetch images from (the SSRF address policy). Only globally
 * routable unicast addresses pass: private, loopback, link-local (the 169.254.169.254 metadata service
 * included), unique-local, CGNAT, multicast, documentation, benchmarking, reserved, unspecified and
 * broadcast addresses are refused, for IPv4 and IPv6 alike. IPv6 forms that carry an IPv4 address
 * (IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96) are judged by the IPv4 address they carry; the
 * deprecated IPv4-compatible, 6to4 and Teredo forms are refused outright.
 *
 * Addresses are parsed into bytes (after `net.isIP` has validated the text) and matched against CIDR
 * prefixes, never by regular expressions on the text, so no spelling of an address slips through.
 */
import { isIP } from 'node:net';

export interface AddressPolicy {
  /** Loopback (127.0.0.0/8, ::1) passes too: local development and tests against a loopback image server. */
  allowLoopback: boolean;
}

export type AddressVerdict =
  | {
      allowed: true;
      /** The address to connect to (an IPv4-mapped address becomes plain IPv4). */ address: string;
      family: 4 | 6;
    }
  | { allowed: false; reason: string };

interface Range {
  cidr: string;
  bytes: Uint8Array;
  prefixLength: number;
  /** How the refusal reads: "<address> is <what> (<cidr>)". */
  what: string;
}

function range(cidr: string, what: string): Range {
  const [text = '', length = ''] = cidr.split('/');
  const bytes = addressBytes(text);
  if (bytes === undefined) throw new Error(`bad range ${cidr}`);
  return { cidr, bytes, prefixLength: Number(length), what };
}

const LOOPBACK = 'a loopback address';

/** IPv4 ranges that are not globally reachable (IANA special-purpose registry, RFC 6890 and successors). */
const IPV4_REFUSED: readonly Range[] = [
  range('0.0.0.0/8', 'an unspecified ("this network") address'),
  range('10.0.0.0/8', 'a private address'),
  range('100.64.0.0/10', 'a carrier-grade NAT (shared) address'),
  range('127.0.0.0/8', LOOPBACK),
  range('169.254.0.0/16', 'a link-local address (cloud metadata lives here)'),
  range('172.16.0.0/12', 'a private address'),
  range('192.0.0.0/24', 'an IETF protocol assignment'),
  range('192.0.2.0/24', 'a documentation address'),
  range('192.88.99.0/24', 'a deprecated 6to4 relay address'),
  range('192.168.0.0/16', 'a private address'),
  range('198.18.0.0/15', 'a benchmarking address'),
  range('198.51.100.0/24', 'a documentation address'),
  range('203.0.113.0/24', 'a documentation address'),
  range('224.0.0.0/4', 'a multicast address'),
  range('255.255.255.255/32', 'the broadcast address'),
  range('240.0.0.0/4', 'a reserved address'),
];

/** IPv6 forms whose last 32 bits are an IPv4 address that decides. */
const IPV4_MAPPED = range('::ffff:0:0/96', 'an IPv4-mapped address');
const NAT64 = range('64:ff9b::/96', 'a NAT64 address');

/** IPv6 ranges refused inside or before the global unicast block 2000::/3 (checked in order). */
const IPV6_REFUSED: readonly Range[] = [
  range('::/128', 'the unspecified address'),
  range('::1/128', LOOPBACK),
  range('::/96', 'a deprecated IPv4-compatible address'),
  range('64:ff9b:1::/48', 'a local-use NAT64 address'),
  range('100::/64', 'a discard-only address'),
  range('2001::/23', 'an IETF protocol assignment (Teredo, benchmarking, ORCHID)'),
  range('2001:db8::/32', 'a documentation address'),
  range('2002::/16', 'a deprecated 6to4 address'),
  range('3fff::/20', 'a documentation address'),
  range('5f00::/16', 'a segment-routing address'),
  range('fc00::/7', 'a unique-local address'),
  range('fe80::/10', 'a link-local address'),
  range('fec0::/10', 'a deprecated site-local address'),
  range('ff00::/8', 'a multicast address'),
];
const IPV6_GLOBAL_UNICAST = range('2000::/3', 'global unicast');

/** Every refused range, for tests that cross-check the matcher against node's net.BlockList. */
export const refusedRanges: readonly { cidr: string; family: 4 | 6 }[] = [
  ...IPV4_REFUSED.map(({ cidr }) => ({ cidr, family: 4 as const })),
  ...IPV6_REFUSED.map(({ cidr }) => ({ cidr, family: 6 as const })),
];

/** 127.0.0.0/8, ::1, or an IPv4-mapped loopback address. */
export function isLoopback(address: string): boolean {
  const bytes = addressBytes(address);
  if (bytes === undefined) return false;
  const ipv4 = bytes.length === 16 && inRange(bytes, IPV4_MAPPED) ? bytes.subarray(12) : bytes;
  return [...IPV4_REFUSED, ...IPV6_REFUSED].some(
    (candidate) => candidate.what === LOOPBACK && inRange(ipv4, candidate),
  );
}

/** Judges one resolved (or literal) address. Text that is not an IP address is refused. */
export function classifyAddress(address: string, policy: AddressPolicy): AddressVerdict {
  if (address.includes('%')) return { allowed: false, reason: `${address} is a scoped (zone-qualified) address` };
  const bytes = addressBytes(address);
  if (bytes === undefined) return { allowed: false, reason: `${JSON.stringify(address)} is not an IP address` };
  if (bytes.length === 16 && (inRange(bytes, IPV4_MAPPED) || inRange(bytes, NAT64))) {
    const embedded = bytes.subarray(12);
    const ipv4 = embedded.join('.');
    const verdict = classifyBytes(embedded, ipv4, policy);
    if (!verdict.allowed) return { allowed: false, reason: `${address} carries ${verdict.reason}` };
    // NAT64 needs the translator, so the IPv6 form is kept; a mapped address is plain IPv4 on the wire.
    return inRange(bytes, NAT64) ? { allowed: true, address, family: 6 } : verdict;
  }
  return classifyBytes(bytes, address, policy);
}

function classifyBytes(bytes: Uint8Array, address: string, policy: AddressPolicy): AddressVerdict {
  const family = bytes.length === 4 ? 4 : 6;
  const refused = (family === 4 ? IPV4_REFUSED : IPV6_REFUSED).find((candidate) => inRange(bytes, candidate));
  if (refused?.what === LOOPBACK && policy.allowLoopback) return { allowed: true, address, family };
  if (refused) return { allowed: false, reason: `${address} is ${refused.what} (${refused.cidr})` };
  if (family === 6 && !inRange(bytes, IPV6_GLOBAL_UNICAST)) {
    return {
      allowed: false,
      reason: `${address} is a reserved address (outside global unicast ${IPV6_GLOBAL_UNICAST.cidr})`,
    };
  }
  return { allowed: true, address, family };
}

function inRange(bytes: Uint8Array, candidate: Range): boolean {
  if (bytes.length !== candidate.bytes.length) return false;
  const whole = candidate.prefixLength >> 3;
  for (let index = 0; index < whole; index++) if (bytes[index] !== candidate.bytes[index]) return false;
  const rest = candidate.prefixLength & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((bytes[whole] ?? 0) & mask) === ((candidate.bytes[whole] ?? 0) & mask);
}

/** 4 bytes for IPv4, 16 for IPv6, undefined for anything `net.isIP` does not accept. */
export function addressBytes(address: string): Uint8Array | undefined {
  const family = isIP(address);
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  if (family === 6 && !address.includes('%')) return ipv6Bytes(address);
  return undefined;
}

/** Expects text `net.isIPv6` accepted: hex groups, at most one `::`, optionally a dotted IPv4 tail. */
function ipv6Bytes(address: string): Uint8Array {
  const groups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (!group.includes('.')) return [parseInt(group, 16)];
      const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
      return [(a << 8) | b, (c << 8) | d];
    });
  };
  const [head = '', tail] = address.split('::');
  const headGroups = groups(head);
  const tailGroups = tail === undefined ? [] : groups(tail);
  const words = [
    ...headGroups,
    ...Array.from({ length: 8 - headGroups.length - tailGroups.length }, () => 0),
    ...tailGroups,
  ];
  const bytes = new Uint8Array(16);
  words.forEach((word, index) => {
    bytes[index * 2] = word >> 8;
    bytes[index * 2 + 1] = word & 0xff;
  });
  return bytes;
}
