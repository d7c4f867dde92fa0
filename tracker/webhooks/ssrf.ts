// Where outbound webhooks may go. Account owners choose the URLs, so a URL must not reach the tracker's own
// network: loopback, private, shared (CGNAT), link-local, unspecified, multicast or cloud metadata
// addresses are refused. The check runs on the address actually connected to (the agents' DNS
// lookup, and IP literals, which skip DNS), so a name that resolves elsewhere later cannot slip by.
import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (CGNAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the 169.254.169.254 metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local, including the fd00:ec2::254 metadata service
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address that isIP accepted (a zone such as %eth0 is dropped). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = groups(head);
  const right = groups(tail);
  const all = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return all.flatMap((g) => [g >> 8, g & 255]);
}

const startsWith = (bytes: number[], prefix: number[]) => prefix.every((b, i) => bytes[i] === b);
const dottedQuad = (bytes: number[]) => bytes.join('.');
const ZEROS_80 = Array<number>(10).fill(0);

/**
 * The IPv4 addresses an IPv6 address carries, for every form that ends up delivered to an IPv4
 * host: IPv4-mapped (::ffff:a.b.c.d), SIIT (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64
 * (64:ff9b::/96), 6to4 (2002::/16) and Teredo (2001::/32: the server, and the client xor'ed).
 */
function embeddedIpv4(bytes: number[]): string[] {
  const last = bytes.slice(12);
  if (startsWith(bytes, [...ZEROS_80, 0xff, 0xff])) return [dottedQuad(last)];
  if (startsWith(bytes, [...ZEROS_80.slice(0, 8), 0xff, 0xff, 0, 0])) return [dottedQuad(last)];
  if (startsWith(bytes, [...ZEROS_80, 0, 0])) return [dottedQuad(last)];
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, ...ZEROS_80.slice(0, 8)])) return [dottedQuad(last)];
  if (startsWith(bytes, [0x20, 0x02])) return [dottedQuad(bytes.slice(2, 6))];
  if (startsWith(bytes, [0x20, 0x01, 0, 0])) return [dottedQuad(bytes.slice(4, 8)), dottedQuad(last.map((b) => b ^ 0xff))];
  return [];
}

/** True for an address a webhook must not be sent to (anything that is not a public unicast IP). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const bytes = ipv6Bytes(address);
  // The local-use NAT64 prefix (RFC 8215) translates into the operator's own network.
  if (startsWith(bytes, [0, 0x64, 0xff, 0x9b, 0, 1])) return true;
  const inside = embeddedIpv4(bytes);
  if (inside.length > 0) return inside.some((v4) => blocked.check(v4, 'ipv4'));
  return blocked.check(address.split('%')[0]!, 'ipv6');
}

export class ForbiddenAddressError extends Error {
  readonly code = 'EFORBIDDENADDRESS';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a private, loopback, link-local or metadata address`);
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** dns.lookup with every resolved address checked; used by the delivery agents' connections. */
export function guardedLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    const bad = addresses.find((a) => isForbiddenAddress(a.address));
    if (bad) return callback(new ForbiddenAddressError(hostname, bad.address), []);
    if (options.all) return callback(null, addresses);
    const first = addresses[0]!;
    callback(null, first.address, first.family);
  });
}

/** URL.hostname of an IPv6 literal keeps its brackets. */
export const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Refuses an IP-literal URL host that is forbidden (connections to literals skip the lookup). */
export function assertAllowedLiteral(url: URL): void {
  const host = bareHost(url);
  if (isIP(host) && isForbiddenAddress(host)) throw new ForbiddenAddressError(host, host);
}
