// Ruptela command ids (the byte after the IMEI) and the server's answers to them.
import { crc16Kermit } from '../crc.js';

export const MSG = {
  records: 1,
  configuration: 2,
  version: 3,
  firmwareUpdate: 4,
  setConnection: 5,
  setOdometer: 6,
  smsViaGprsResponse: 7,
  smsViaGprs: 8,
  dtcs: 9,
  identification: 15,
  heartbeat: 16,
  setIo: 17,
  files: 37,
  extendedRecords: 68,
} as const;

/** Command ids a device sends: anything else at the command position is not a Ruptela frame. */
export const DEVICE_COMMANDS: ReadonlySet<number> = new Set([1, 2, 3, 4, 5, 6, 7, 9, 15, 16, 17, 37, 68]);

/** Whether the 8 bytes at `at` can be an IMEI: below 10^15 < 2^50, so the top byte is zero and the next at most 3. */
export function isImei(buf: Buffer, at: number): boolean {
  return buf[at] === 0 && buf[at + 1]! <= 0x03;
}

/** A DTC entry: reserved, time, longitude, latitude, archive flag, 5-character code. */
export const DTC_ENTRY = 19;

/**
 * A server packet: length, command id + 100, payload, CRC-16/KERMIT. Server packets carry no
 * IMEI: the connection says who they are for.
 */
export function serverPacket(command: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const out = Buffer.alloc(2 + 1 + payload.length + 2);
  out.writeUInt16BE(1 + payload.length, 0);
  out[2] = 100 + command;
  payload.copy(out, 3);
  out.writeUInt16BE(crc16Kermit(out, 2, out.length - 2), out.length - 2);
  return out;
}

/**
 * The answers to records and extended records: command 100 (not 100 + 1, unlike every other
 * answer), 1 accepted, 0 refused (the device sends them again). Built once: every packet gets one.
 */
const RECORDS_ACCEPTED = serverPacket(0, Buffer.from([1]));
const RECORDS_REFUSED = serverPacket(0, Buffer.from([0]));
export const recordsAnswer = (accepted: boolean) => (accepted ? RECORDS_ACCEPTED : RECORDS_REFUSED);
