// The PROXY protocol header (haproxy.org/download/2.9/doc/proxy-protocol.txt) a TCP balancer sends
// first on each connection it opens to a tracker (nginx `proxy_protocol on;` in stream {} sends
// version 1): the device's own address, which the tracker's socket cannot see behind the balancer.
// Version 1 is one text line; version 2 a binary block. Parsed from the first bytes of a
// connection, before any device protocol sees them.
import { isIPv4, isIPv6 } from 'node:net';

/** Version 1: `PROXY TCP4 255.255.255.255 255.255.255.255 65535 65535\r\n` is the longest line. */
const V1_MAX_BYTES = 107;
const V1_PREFIX = Buffer.from('PROXY ', 'latin1');
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
const V2_FIXED_BYTES = 16;
/**
 * Version 2 with its extensions (TLVs): the specification's bound for a header that fits one minimal
 * TCP segment. A balancer adding more (certificates, long unique ids) is refused.
 */
export const PROXY_HEADER_MAX_BYTES = 536;

export type ProxyHeader =
  /** Not all of the header is here yet. */
  | { kind: 'more' }
  | { kind: 'invalid'; reason: string }
  /** `address`: the device's; null when the balancer speaks for itself (LOCAL, UNKNOWN: a health check). */
  | { kind: 'header'; address: string | null; length: number };

const MORE: ProxyHeader = { kind: 'more' };
const invalid = (reason: string): ProxyHeader => ({ kind: 'invalid', reason });

/** Whether `head` (so far) agrees with the start of `expected`. */
const startsLike = (head: Buffer, expected: Buffer) => head.subarray(0, expected.length).equals(expected.subarray(0, Math.min(head.length, expected.length)));

/** The header at the start of `head`, or what is wrong with it, or that more bytes are needed. */
export function parseProxyHeader(head: Buffer): ProxyHeader {
  if (head.length === 0) return MORE;
  if (startsLike(head, V1_PREFIX)) return parseV1(head);
  if (startsLike(head, V2_SIGNATURE)) return parseV2(head);
  return invalid('no PROXY protocol header');
}

function parseV1(head: Buffer): ProxyHeader {
  const end = head.subarray(0, V1_MAX_BYTES).indexOf('\r\n');
  if (end < 0) return head.length >= V1_MAX_BYTES ? invalid('version 1 line too long') : MORE;
  const [, family, source, destination, sourcePort, destinationPort, ...extra] = head.toString('latin1', 0, end).split(' ');
  const length = end + 2;
  if (family === 'UNKNOWN') return { kind: 'header', address: null, length };
  const isIP = family === 'TCP4' ? isIPv4 : family === 'TCP6' ? isIPv6 : null;
  if (!isIP) return invalid('version 1 family is not TCP4, TCP6 or UNKNOWN');
  if (extra.length > 0 || !isIP(source ?? '') || !isIP(destination ?? '') || !isPort(sourcePort) || !isPort(destinationPort)) return invalid('version 1 line is malformed');
  return { kind: 'header', address: family === 'TCP6' ? normalIPv6(source!) : source!, length };
}

const isPort = (text: string | undefined) => text !== undefined && /^(0|[1-9]\d{0,4})$/.test(text) && Number(text) <= 65535;

function parseV2(head: Buffer): ProxyHeader {
  if (head.length < V2_FIXED_BYTES) return MORE;
  const versionCommand = head[12]!;
  if (versionCommand >> 4 !== 2) return invalid('version 2 header has another version');
  const command = versionCommand & 0x0f;
  if (command > 1) return invalid('version 2 command is not LOCAL or PROXY');
  const length = V2_FIXED_BYTES + head.readUInt16BE(14);
  if (length > PROXY_HEADER_MAX_BYTES) return invalid(`version 2 header longer than ${PROXY_HEADER_MAX_BYTES} bytes`);
  if (head.length < length) return MORE;
  if (command === 0) return { kind: 'header', address: null, length }; // LOCAL: the balancer's own check
  const family = head[13]! >> 4;
  const addresses = head.subarray(V2_FIXED_BYTES, length);
  if (family === 1) {
    if (addresses.length < 12) return invalid('version 2 IPv4 addresses cut short');
    return { kind: 'header', address: [...addresses.subarray(0, 4)].join('.'), length };
  }
  if (family === 2) {
    if (addresses.length < 36) return invalid('version 2 IPv6 addresses cut short');
    const groups = Array.from({ length: 8 }, (_, i) => addresses.readUInt16BE(i * 2).toString(16));
    return { kind: 'header', address: normalIPv6(groups.join(':')), length };
  }
  // UNSPEC or a UNIX socket: no device address to use; the connection's own stands.
  return { kind: 'header', address: null, length };
}

/** One spelling per IPv6 address (compressed, lower case), so per-address caps count it once. */
const normalIPv6 = (address: string) => new URL(`http://[${address}]/`).hostname.slice(1, -1);
