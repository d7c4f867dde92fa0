// GT06 acknowledgements: 78 78 05 <proto> <serial> <crc> 0d 0a (79 79 00 05 … for the few messages
// that expect an answer in their own extended framing).
import { crc16X25 } from '../crc.js';

export function buildAck(proto: number, serial: number, extended = false): Buffer {
  const head = extended ? [0x79, 0x79, 0x00, 0x05] : [0x78, 0x78, 0x05];
  const out = Buffer.from([...head, proto, serial >> 8, serial & 0xff, 0, 0, 0x0d, 0x0a]);
  const crcAt = out.length - 4;
  out.writeUInt16BE(crc16X25(out, 2, crcAt), crcAt);
  return out;
}
