// PROXY protocol headers as a TCP balancer sends them ahead of a device's bytes: version 1 (the
// text line nginx's `proxy_protocol on;` writes) and version 2 (binary, as HAProxy's send-proxy-v2).
import { isIPv4 } from 'node:net';

export function proxyV1(source: string, sourcePort = 40000): Buffer {
  const [family, destination] = isIPv4(source) ? ['TCP4', '127.0.0.1'] : ['TCP6', '::1'];
  return Buffer.from(`PROXY ${family} ${source} ${destination} ${sourcePort} 5000\r\n`, 'latin1');
}

const SIGNATURE = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');

/** Version 2, PROXY command over TCP from an IPv4 address, or `local` (the balancer's own check). */
export function proxyV2(source: string | 'local', sourcePort = 40000, tlvBytes = 0): Buffer {
  if (source === 'local') return Buffer.concat([SIGNATURE, Buffer.from([0x20, 0x00, 0x00, 0x00])]);
  const addresses = Buffer.alloc(12);
  source.split('.').forEach((octet, i) => addresses.writeUInt8(Number(octet), i));
  addresses.writeUInt8(127, 4); // destination 127.0.0.1
  addresses.writeUInt8(1, 7);
  addresses.writeUInt16BE(sourcePort, 8);
  addresses.writeUInt16BE(5000, 10);
  // A NOOP extension (type 0x04) filling tlvBytes, header included.
  const tlv = tlvBytes > 0 ? Buffer.concat([Buffer.from([0x04, (tlvBytes - 3) >> 8, (tlvBytes - 3) & 0xff]), Buffer.alloc(tlvBytes - 3)]) : Buffer.alloc(0);
  const length = Buffer.alloc(2);
  length.writeUInt16BE(addresses.length + tlv.length);
  return Buffer.concat([SIGNATURE, Buffer.from([0x21, 0x11]), length, addresses, tlv]);
}
