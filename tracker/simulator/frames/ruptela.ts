// Ruptela frames the way FM-series units send them: identification, records (command 1, 1-byte IO
// ids) and extended records (command 68, 2-byte IO ids), heartbeat, and the SMS-via-GPRS answer
// to a command. Every packet: length, IMEI as 8 bytes, command, payload, CRC-16/KERMIT.
import { crc16Kermit } from '../../protocols/crc.js';
import type { DeviceFix, DeviceState } from './fix.js';

function packet(imei: string, command: number, payload: Buffer): Buffer {
  const out = Buffer.alloc(2 + 8 + 1 + payload.length + 2);
  out.writeUInt16BE(9 + payload.length, 0);
  out.writeBigUInt64BE(BigInt(imei), 2);
  out[10] = command;
  payload.copy(out, 11);
  out.writeUInt16BE(crc16Kermit(out, 2, out.length - 2), out.length - 2);
  return out;
}

/** IO parameters by size group (1, 2, 4, 8 bytes): id → value. */
export type RuptelaIo = [Map<number, number>, Map<number, number>, Map<number, number>, Map<number, bigint>];

/** What a unit reports besides the fix: ignition (409), power in mV (29), CAN fuel 0..250 (207). */
export function ruptelaIo(state: DeviceState = {}): RuptelaIo {
  const one = new Map<number, number>([[409, state.ignition ? 1 : 0]]);
  const two = new Map<number, number>();
  if (state.power !== undefined) two.set(29, Math.round(state.power * 1000));
  if (state.fuelLevel !== undefined) one.set(207, Math.round(state.fuelLevel / 0.4));
  return [one, two, new Map(), new Map()];
}

/** One record; `extended` gives the 2-byte event and IO ids of command 68. */
export function ruptelaRecord(fix: DeviceFix, io: RuptelaIo, extended = true, event = 0): Buffer {
  const parts: Buffer[] = [];
  const head = Buffer.alloc(extended ? 23 : 22);
  let at = head.writeUInt32BE(Math.floor(fix.time.getTime() / 1000), 0);
  at = head.writeUInt8(0, at); // timestamp extension
  if (extended) at = head.writeUInt8(0, at); // record extension: not merged
  at = head.writeUInt8(0, at); // priority
  const noFix = fix.valid === false;
  at = head.writeInt32BE(noFix ? -0x80000000 : Math.round(fix.lng * 1e7), at);
  at = head.writeInt32BE(noFix ? -0x80000000 : Math.round(fix.lat * 1e7), at);
  at = head.writeUInt16BE(Math.round((fix.altitude ?? 0) * 10), at);
  at = head.writeUInt16BE(Math.round(fix.heading * 100), at);
  at = head.writeUInt8(fix.satellites ?? 9, at);
  at = head.writeUInt16BE(Math.round(fix.speed), at);
  head.writeUInt8(9, at); // hdop 0.9
  parts.push(head, extended ? u16(event) : Buffer.from([event]));
  io.forEach((group, g) => {
    const size = [1, 2, 4, 8][g]!;
    parts.push(Buffer.from([group.size]));
    for (const [id, value] of group) {
      parts.push(extended ? u16(id) : Buffer.from([id]));
      const v = Buffer.alloc(size);
      if (size === 8) v.writeBigUInt64BE(BigInt(value), 0);
      else v.writeUIntBE(Number(value), 0, size);
      parts.push(v);
    }
  });
  return Buffer.concat(parts);
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(n, 0);
  return b;
}

/** A records packet (68 extended by default, 1 for `records`). */
export function ruptelaRecords(imei: string, records: Buffer[], command: 1 | 68 = 68): Buffer {
  return packet(imei, command, Buffer.concat([Buffer.from([0, records.length]), ...records]));
}

export function ruptelaPosition(imei: string, fix: DeviceFix, state: DeviceState = {}): Buffer {
  return ruptelaRecords(imei, [ruptelaRecord(fix, ruptelaIo(state))]);
}

/** Identification (15): protocol and firmware versions, SIM IMSI, GSM operator, auth key. */
export function ruptelaIdentification(imei: string): Buffer {
  return packet(imei, 15, Buffer.concat([Buffer.from([1, 0x02, 0x13]), Buffer.alloc(8), Buffer.alloc(4), Buffer.alloc(16)]));
}

export function ruptelaHeartbeat(imei: string): Buffer {
  return packet(imei, 16, Buffer.alloc(0));
}

/** The answer to an SMS-via-GPRS command (command 7): the text the unit would have sent by SMS. */
export function ruptelaCommandReply(imei: string, text: string): Buffer {
  return packet(imei, 7, Buffer.from(text, 'latin1'));
}
