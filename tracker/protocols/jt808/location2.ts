// 0x5501 (live) and 0x5502 (stored) reports of the electronic padlocks: a JT600-style BCD fix
// (ddMMyy HHmmss UTC, ddmm.mmmm coordinates, a flags nibble, BCD speed, course in 2° steps), signal,
// satellites, odometer (km), battery, the serving cell, product type, status and alarm words, then
// items (id, length, value).
import { addAlarm, type Alarm, type Telemetry } from '../../positions/telemetry.js';
import { type Reader, utcDate } from '../reader.js';
import type { DecodedPosition } from '../types.js';
import { bcd, type Io } from './values.js';

/** Alarm word bits of product 3 (products 1 and 2 only use bit 0, low power). */
const PRODUCT3_ALARMS: [number, Alarm][] = [[0, 'overspeed'], [1, 'lowPower'], [2, 'vibration'], [3, 'lowBattery'], [5, 'geofenceEnter'], [6, 'geofenceExit']];

/** ddmm.mmmm as BCD digits (`digits` of them, 8 or 9), to degrees. */
function coordinate(digits: string): number {
  const raw = Number(digits);
  return Math.trunc(raw / 1e6) + (raw % 1e6) / 1e4 / 60;
}

export function decodeLockLocation(r: Reader, stored: boolean): DecodedPosition | null {
  const a: Telemetry = {};
  const io: Io = {};
  const [dd, mo, yy, hh, mi, ss] = [...r.bytes(6)].map(bcd) as [number, number, number, number, number, number];
  const time = utcDate(2000 + yy, mo, dd, hh, mi, ss);
  // Latitude: 8 digits; longitude: 9, the ninth in the high nibble of the flags byte.
  const lat = coordinate(r.bytes(4).toString('hex'));
  const lngBytes = r.bytes(5);
  const lng = coordinate(lngBytes.toString('hex').slice(0, 9));
  const flags = lngBytes[4]! & 0x0f;
  const speed = bcd(r.u8());
  const heading = (r.u8() * 2) % 360;
  a.rssi = r.u8();
  const satellites = r.u8();
  a.odometer = r.u32() * 1000;
  const battery = r.u8();
  if (battery <= 100) a.batteryLevel = battery;
  else if (battery === 0xaa || battery === 0xab) a.charge = true;
  const cellId = r.u32();
  const lac = r.u16();
  if (cellId > 0 && lac > 0) a.network = { cellTowers: [{ cellId, locationAreaCode: lac }] };
  const product = r.u8();
  const status = r.u16();
  const alarm = r.u16();
  if ((product === 1 || product === 2) && alarm & 0x01) addAlarm(a, 'lowPower');
  if (product === 3) {
    a.blocked = (status & 0x20) !== 0;
    for (const [bit, kind] of PRODUCT3_ALARMS) if (alarm & (1 << bit)) addAlarm(a, kind);
  }
  io.status = status;
  let altitude: number | undefined;
  while (r.remaining >= 2) {
    const id = r.u8();
    const v = r.bytes(Math.min(r.u8(), r.remaining));
    if (id === 0x02 && v.length >= 2) altitude = v.readInt16BE(0);
    else if (id === 0x10 && v.length >= 1) io.wakeSource = v[0]!;
    else if (id === 0x0b && v.length >= 1) readLockCommand(v, io);
    else if (id === 0x0c && v.length >= 6) io.tilt = `[${tilt(v, 0)},${tilt(v, 2)},${tilt(v, 4)}]`;
    else if (id === 0xfc && v.length >= 1) io.geofence = v[0]!;
  }
  a.io = io;
  if (!time) return null;
  const position: DecodedPosition = {
    deviceTime: time,
    valid: !stored && (flags & 0x01) !== 0,
    lat: flags & 0x02 ? lat : -lat,
    lng: flags & 0x04 ? lng : -lng,
    speed,
    heading,
    satellites,
    attributes: a,
  };
  if (altitude !== undefined) position.altitude = altitude;
  return position;
}

/** 0x0B: the lock command, with a card number or a password, and its result. */
function readLockCommand(v: Buffer, io: Io): void {
  io.lockCommand = v[0]!;
  let at = 1;
  if (v.length >= 5 && v.length <= 6) (io.lockCard = v.readUInt32BE(1)), (at = 5);
  else if (v.length >= 7) (io.lockPassword = v.toString('latin1', 1, 7)), (at = 7);
  if (v.length % 2 === 0 && at < v.length) io.unlockResult = v[at]!;
}

function tilt(v: Buffer, at: number): number {
  const x = v.readUInt16BE(at);
  return x > 0x8000 ? x - 0x10000 : x;
}
