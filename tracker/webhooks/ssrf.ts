// Where webhooks may go. Account owners choose the URLs, so a URL must not reach the tracker's own
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

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible IPv6 address. */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1]!;
  const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const hi = parseInt(hex[1]!, 16);
  const lo = parseInt(hex[2]!, 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True for an address a webhook must not be sent to (anything that is not a public unicast IP). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const v4 = embeddedIpv4(address);
  return v4 !== null ? blocked.check(v4, 'ipv4') : blocked.check(address, 'ipv6');
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
