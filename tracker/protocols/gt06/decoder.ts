// GT06 (Concox and compatible) message decoding. A frame is
//   78 78 | len(1) | proto | content | serial(2) | crc(2) | 0d 0a   (or 79 79 with len(2))
// and the CRC-16/X25 covers the length field through the serial number. Messages are
// acknowledged with 78 78 05 <proto> <serial> <crc> 0d 0a (ack.ts). This file reads the envelope
// and hands the body to the reader of its message number and layout (variant.ts).
import { crc16X25 } from '../crc.js';
import { Reader, emptyWhenTruncated } from '../reader.js';
import type { DecodeResult } from '../types.js';
import { buildAck } from './ack.js';
import type { Found, Message } from './blocks.js';
import { decodeCameraAlarm } from './camera-alarm.js';
import { decodeString, decodeStringInfo } from './command-reply.js';
import { decodeHeartbeat, decodeInfo, decodeStatusWithTemperature } from './info.js';
import { decodeLocation, isLocation } from './location.js';
import { decodeAz735, decodeGpsLbs8, decodeIButton, decodeSr411, decodeTrx16iLocation, decodeX1 } from './location-models.js';
import { decodeDeviceStatus, decodeModular } from './modules.js';
import { CELL_LISTS, decodeCells, decodeWifi, WIFI_LISTS } from './network.js';
import { decodeObd, decodeSerialData } from './passthrough.js';
import { variantOf } from './variant.js';

export const MSG = {
  LOGIN: 0x01,
  STATUS: 0x13,
  STRING: 0x15,
  STRING_INFO: 0x21,
  HEARTBEAT: 0x23,
  COMMAND: 0x80,
} as const;

/** Device-bound commands and the extended command reply are the only messages not acknowledged. */
const NOT_ACKED = new Set<number>([MSG.STRING_INFO, MSG.COMMAND, 0x81, 0x82]);

export const decodeGt06 = emptyWhenTruncated(decodeFrame);

function decodeFrame(frame: Buffer): DecodeResult {
  const extended = frame[0] === 0x79;
  const headerLen = extended ? 4 : 3;
  // Serial, CRC and terminator sit at fixed offsets from the end; the body is what remains.
  if (frame.length < headerLen + 1 + 6) return { positions: [] };
  const tail = frame.length - 6;
  const serial = frame.readUInt16BE(tail);
  const badChecksum = frame.readUInt16BE(tail + 2) !== crc16X25(frame, 2, tail + 2);
  const proto = frame[headerLen]!;
  // Some firmwares declare a length that does not match what they send (often leaving out
  // serial and CRC); their body then runs up to the terminator.
  const declared = extended ? frame.readUInt16BE(2) : frame[2]!;
  const regular = headerLen + declared + 2 === frame.length;
  const r = new Reader(frame, headerLen + 1, regular ? tail : frame.length - 2);
  const result: DecodeResult = { positions: [] };
  if (badChecksum) result.badChecksum = true;
  // Devices resend unacknowledged messages, including types we do not decode.
  if (!NOT_ACKED.has(proto)) result.reply = buildAck(proto, serial);

  if (proto === MSG.LOGIN) {
    // IMEI as 8 BCD bytes: a padding nibble, then 15 digits.
    const imei = r.bytes(8).toString('hex').slice(1);
    if (/^\d{15}$/.test(imei)) result.identity = imei;
    else delete result.reply; // nothing to accept
    return result;
  }
  const variant = variantOf(proto, declared, extended, frame.subarray(headerLen + 1, r.end));
  const m: Message = { proto, extended, declared, variant, r, frame };
  const found = decodeMessage(m, serial);
  result.positions = found.positions;
  if (found.attributes) result.attributes = found.attributes;
  if (found.commandReply !== undefined) result.commandReply = found.commandReply;
  if (found.commandSeq !== undefined) result.commandSeq = found.commandSeq;
  if (found.heartbeat) result.heartbeat = true;
  if ('reply' in found) {
    if (found.reply) result.reply = found.reply;
    else delete result.reply;
  }
  return result;
}

/**
 * The reader for a message. Several numbers mean different messages depending on the framing or
 * the layout (variant) the frame shows; the order of the checks settles those.
 */
function decodeMessage(m: Message, serial: number): Found {
  const { proto, extended, variant } = m;
  if (proto === MSG.STRING) return decodeString(m);
  if (proto === MSG.STRING_INFO) return decodeStringInfo(m);
  if (proto === MSG.HEARTBEAT) return decodeHeartbeat(m);
  if (proto === 0x34 && variant !== 'sl4x') return decodeX1(m);
  if (WIFI_LISTS.has(proto) && !(proto === 0x17 && variant === 'rfid')) return decodeWifi(m);
  if (proto === 0x94) return decodeInfo(m);
  if (proto === 0x24 && variant === 'sr411') return decodeSr411(m);
  if (CELL_LISTS.has(proto) && !(proto === 0xa2 && variant === 'lw4g') && !(proto === 0x33 && extended)) return decodeCells(m);
  if (proto === MSG.STATUS) {
    // A status message is also the device's heartbeat.
    const found = m.r.remaining === 16 ? decodeStatusWithTemperature(m) : decodeLocation(m);
    return { ...found, heartbeat: true };
  }
  if (proto === 0x61) return decodeIButton(m);
  if (proto === 0x36 && variant === 'trx16i') return decodeTrx16iLocation(m);
  // In 79 79 framing 0x32 is the AZ735's position and 0x36 a photo block.
  if (isLocation(m) && !(extended && (proto === 0x32 || proto === 0x36))) {
    // The Space10X sends several cells in 0x19; there is nothing to keep.
    if (proto === 0x19 && variant === 'space10x') return { positions: [], heartbeat: true };
    return decodeLocation(m);
  }
  if (proto === 0x95) return decodeCameraAlarm(m);
  if ((proto === 0x32 || proto === 0x33) && extended) return decodeAz735(m, serial);
  if (proto === 0x8c) return decodeObd(m);
  if (proto === 0x70) return decodeModular(m);
  if (proto === 0x9b) return decodeSerialData(m);
  if (proto === 0xf1 || proto === 0xf2) return decodeDeviceStatus(m);
  if (proto === 0x38) return decodeGpsLbs8(m);
  // Valid frame of a type we do not use: still a sign of life.
  return { positions: [], heartbeat: true };
}
