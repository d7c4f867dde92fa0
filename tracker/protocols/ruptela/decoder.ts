// Ruptela decoder: records (command 1) and extended records (68) with their IO parameters in size
// groups of 1, 2, 4 and 8 bytes, DTC lists (9), identification and heartbeat (15, 16), and the
// device's answers to commands (2, 3, 4, 7 text; 17 set-IO result). Every packet carries the IMEI.
import type { Telemetry } from '../../positions/telemetry.js';
import { crc16Kermit } from '../crc.js';
import { emptyWhenTruncated, Reader } from '../reader.js';
import { atLastFix, lastFix, rememberFix } from '../last-fix.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';
import { DRIVER_ID_PARTS, driverId, mapIo, SIGNED_IDS } from './io.js';
import { MSG, recordsAnswer, serverPacket } from './messages.js';
import { ioElements } from '../io-elements.js';

/** The coordinate a record carries when the unit has no fix. */
const NO_COORDINATE = -0x80000000;

export const decodeRuptela = emptyWhenTruncated((frame: Buffer, conn: ProtocolState): DecodeResult => {
  // The framer cut the packet (from its length field or, for DTCs, its entry count).
  const crcAt = frame.length - 2;
  const badChecksum = crcAt < 11 || crc16Kermit(frame, 2, crcAt) !== frame.readUInt16BE(crcAt);
  const r = new Reader(frame, 2, crcAt);
  const result: DecodeResult = { identity: r.u64().toString().padStart(15, '0'), positions: [] };
  if (badChecksum) result.badChecksum = true;
  const command = r.u8();
  switch (command) {
    case MSG.records:
    case MSG.extendedRecords:
      result.positions = decodeRecords(r, command === MSG.extendedRecords, conn);
      // A corrupted packet is refused so the device sends it again.
      result.reply = recordsAnswer(!badChecksum);
      return result;
    case MSG.dtcs:
      result.positions = decodeDtcs(r);
      result.reply = serverPacket(MSG.dtcs, Buffer.from([1]));
      return result;
    case MSG.identification:
    case MSG.heartbeat:
      result.heartbeat = true;
      result.reply = serverPacket(command, Buffer.from([1]));
      return result;
    case MSG.configuration:
    case MSG.version:
    case MSG.firmwareUpdate:
    case MSG.smsViaGprsResponse:
      return commandAnswer(result, conn, r.bytes(r.remaining).toString('latin1').trim());
    case MSG.setIo:
      return commandAnswer(result, conn, String(r.u8()));
    default:
      // Files (37) are only sent when asked for, and the tracker does not ask.
      result.heartbeat = true;
      return result;
  }
});

/** A command's answer: the reply text, stored at the last fix as Traccar does. */
function commandAnswer(result: DecodeResult, conn: ProtocolState, text: string): DecodeResult {
  const printable = text.replace(/[^\x20-\x7e]/g, '').slice(0, 256);
  result.positions.push(atLastFix(lastFix(conn), new Date(), { result: printable }));
  result.commandReply = printable;
  return result;
}

function decodeRecords(r: Reader, extended: boolean, conn: ProtocolState): DecodedPosition[] {
  r.u8(); // records left in the device's memory
  const count = r.u8();
  const positions: DecodedPosition[] = [];
  for (let i = 0; i < count; i++) {
    const deviceTime = new Date(r.u32() * 1000);
    r.u8(); // timestamp extension (sub-second order of records with the same second)
    // Extended records may split one record's IO over several: parts after the first add to it.
    let merging = false;
    if (extended) {
      const ext = r.u8();
      const current = ext & 0x0f;
      merging = current > 0 && current <= ext >> 4 && positions.length > 0;
    }
    r.u8(); // priority
    const position = readGps(r, deviceTime, conn);
    const target = merging ? positions[positions.length - 1]! : position;
    const event = extended ? r.u16() : r.u8();
    if (!merging) target.attributes.event = event;
    readIo(r, extended, target.attributes);
    if (merging) continue;
    positions.push(target);
    rememberFix(conn, [target]);
  }
  return positions;
}

function readGps(r: Reader, deviceTime: Date, conn: ProtocolState): DecodedPosition {
  const lng = r.i32();
  const lat = r.i32();
  const altitude = r.u16() / 10;
  const heading = r.u16() / 100;
  const satellites = r.u8();
  const speed = r.u16();
  const hdop = r.u8() / 10;
  if (lng === NO_COORDINATE || lat === NO_COORDINATE) return atLastFix(lastFix(conn), deviceTime, {});
  return { deviceTime, valid: true, lat: lat / 1e7, lng: lng / 1e7, speed, heading, altitude, satellites, attributes: { hdop } };
}

/** The IO groups' value sizes, in the order they come. */
const IO_SIZES = [1, 2, 4, 8] as const;

/** The four IO groups; ids are 1 byte in records, 2 in extended records. Values are read in place. */
function readIo(r: Reader, extended: boolean, attributes: Telemetry): void {
  const io = (attributes.io ??= ioElements());
  let raw: Map<number, Buffer> | undefined; // only the parameters a driver id is made of
  for (const size of IO_SIZES) {
    const n = r.u8();
    for (let j = 0; j < n; j++) {
      const id = extended ? r.u16() : r.u8();
      const at = r.skip(size);
      if (DRIVER_ID_PARTS.has(id)) (raw ??= new Map()).set(id, r.buf.subarray(at, at + size));
      const value = readValue(r.buf, at, size, SIGNED_IDS.has(id));
      io[String(id)] = value;
      if (typeof value === 'number') mapIo(attributes, id, value);
    }
  }
  const driver = raw && driverId(raw);
  if (driver) attributes.driverUniqueId = driver;
}

/** A parameter's value; an 8-byte value past 2^53 is kept as hex rather than rounded. */
function readValue(buf: Buffer, at: number, size: number, signed: boolean): number | string {
  if (size === 8) {
    const v = buf.readBigUInt64BE(at);
    return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : buf.toString('hex', at, at + 8);
  }
  return signed ? buf.readIntBE(at, size) : buf.readUIntBE(at, size);
}

/** DTC lists: each entry is a time, a place and a 5-character trouble code. */
function decodeDtcs(r: Reader): DecodedPosition[] {
  const count = r.u8();
  const positions: DecodedPosition[] = [];
  for (let i = 0; i < count; i++) {
    r.u8(); // reserved
    const deviceTime = new Date(r.u32() * 1000);
    const lng = r.i32() / 1e7;
    const lat = r.i32() / 1e7;
    const archive = r.u8() === 2;
    const code = r.bytes(5).toString('latin1').replace(/[^\x20-\x7e]/g, '');
    positions.push({ deviceTime, valid: true, lat, lng, speed: 0, heading: 0, attributes: { ...(archive && { archive }), io: { dtcs: code } } });
  }
  return positions;
}
