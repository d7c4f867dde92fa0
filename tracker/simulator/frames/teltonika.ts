// Teltonika frames the way FMB devices send them (Teltonika "Codec" wiki): the IMEI
// handshake, Codec 8 / 8 Extended AVL packets and Codec 12 command responses.
import { crc16Ibm } from '../../protocols/crc.js';
import type { DeviceFix, DeviceState } from './fix.js';

/** One IO element: id, value and its width in bytes (1, 2, 4, 8; 8E also allows raw bytes). */
export interface IoElement {
  id: number;
  value: number | bigint | Buffer;
  width?: 1 | 2 | 4 | 8;
}

export interface AvlRecord {
  fix: DeviceFix;
  /** 0 low, 1 high, 2 panic. */
  priority?: number;
  eventId?: number;
  io?: IoElement[];
}

export function teltonikaHandshake(imei: string): Buffer {
  const out = Buffer.alloc(2 + imei.length);
  out.writeUInt16BE(imei.length);
  out.write(imei, 2, 'ascii');
  return out;
}

/** IO elements for the FMB family's standard ids. */
export function fmbIo(state: DeviceState): IoElement[] {
  const io: IoElement[] = [];
  if (state.ignition !== undefined) io.push({ id: 239, value: state.ignition ? 1 : 0, width: 1 });
  if (state.fuelLevel !== undefined) io.push({ id: 89, value: Math.round(state.fuelLevel), width: 1 });
  if (state.batteryLevel !== undefined) io.push({ id: 113, value: Math.round(state.batteryLevel), width: 1 });
  if (state.power !== undefined) io.push({ id: 66, value: Math.round(state.power * 1000), width: 2 });
  return io;
}

/** A position record carrying the device state; an SOS alarm is sent with panic priority. */
export function teltonikaRecord(fix: DeviceFix, state: DeviceState = {}): AvlRecord {
  return { fix, priority: state.alarm === 'sos' ? 2 : 0, io: fmbIo(state) };
}

function widthOf(e: IoElement): number {
  return Buffer.isBuffer(e.value) ? e.value.length : e.width ?? 4;
}

function writeValue(e: IoElement): Buffer {
  if (Buffer.isBuffer(e.value)) return e.value;
  const width = widthOf(e);
  const out = Buffer.alloc(width);
  if (width === 8) out.writeBigUInt64BE(BigInt(e.value));
  else out.writeUIntBE(Number(e.value), 0, width);
  return out;
}

function encodeRecord(rec: AvlRecord, extended: boolean): Buffer {
  const { fix } = rec;
  const head = Buffer.alloc(24);
  head.writeBigUInt64BE(BigInt(fix.time.getTime()), 0);
  head[8] = rec.priority ?? 0;
  head.writeInt32BE(Math.round(fix.lng * 1e7), 9);
  head.writeInt32BE(Math.round(fix.lat * 1e7), 13);
  head.writeInt16BE(Math.round(fix.altitude ?? 0), 17);
  head.writeUInt16BE(Math.round(fix.heading) % 360, 19);
  head[21] = fix.valid === false ? 0 : fix.satellites ?? 9;
  head.writeUInt16BE(Math.round(fix.speed), 22);

  const io = rec.io ?? [];
  const num = (n: number) => {
    const b = Buffer.alloc(extended ? 2 : 1);
    if (extended) b.writeUInt16BE(n);
    else b[0] = n;
    return b;
  };
  const parts: Buffer[] = [head, num(rec.eventId ?? 0), num(io.length)];
  const fixedWidths = [1, 2, 4, 8];
  for (const width of fixedWidths) {
    const group = io.filter((e) => !Buffer.isBuffer(e.value) && widthOf(e) === width);
    parts.push(num(group.length));
    for (const e of group) parts.push(num(e.id), writeValue(e));
  }
  if (extended) {
    // Codec 8E: elements of any other length go in the variable-length group.
    const variable = io.filter((e) => Buffer.isBuffer(e.value));
    parts.push(num(variable.length));
    for (const e of variable) parts.push(num(e.id), num(widthOf(e)), writeValue(e));
  }
  return Buffer.concat(parts);
}

/** Wraps codec data (codec byte through the second count): preamble, length, data, CRC-16/IBM as 4 bytes. */
export function avlPacket(data: Buffer): Buffer {
  const out = Buffer.alloc(8 + data.length + 4);
  out.writeUInt32BE(data.length, 4);
  data.copy(out, 8);
  out.writeUInt32BE(crc16Ibm(data), 8 + data.length);
  return out;
}

/** AVL data packet in Codec 8 (default) or Codec 8 Extended. */
export function teltonikaAvl(records: AvlRecord[], codec: 0x08 | 0x8e = 0x08): Buffer {
  const extended = codec === 0x8e;
  const count = Buffer.from([records.length]);
  const data = Buffer.concat([Buffer.from([codec]), count, ...records.map((r) => encodeRecord(r, extended)), count]);
  return avlPacket(data);
}

/** Codec 12 response (type 0x06) with the command's answer text. */
export function teltonikaCommandResponse(text: string): Buffer {
  const body = Buffer.from(text, 'ascii');
  const size = Buffer.alloc(4);
  size.writeUInt32BE(body.length);
  return avlPacket(Buffer.concat([Buffer.from([0x0c, 0x01, 0x06]), size, body, Buffer.from([0x01])]));
}

/** The answer FMB devices give to "getgps". */
export function teltonikaGetGpsReply(fix: DeviceFix): string {
  const iso = fix.time.toISOString();
  return `GPS:1 Sat:${fix.satellites ?? 9} Lat:${fix.lat.toFixed(6)} Long:${fix.lng.toFixed(6)} Alt:${fix.altitude ?? 0} Speed:${Math.round(fix.speed)} Dir:${Math.round(fix.heading)} Date: ${iso.slice(0, 10).replace(/-/g, '/')} Time: ${iso.slice(11, 19)}`;
}
