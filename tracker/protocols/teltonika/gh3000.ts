// Codec 7: GH3000 personal trackers. Each record says which parts it carries:
//   time(4: low 30 bits, seconds since 2007-01-01) | global mask | [location mask | location…] | IO groups
// Global mask: bit 0 location block, bits 1-3 IO groups of 1, 2 and 4-byte values (count, then
// 1-byte id + value). Location mask: bit 0 latitude and longitude (floats), 1 altitude (m), 2 course
// (1/256 of a turn), 3 speed (km/h), 4 satellites, 5 cell (LAC, cell id; with bit 6 its signal and
// bit 7 the operator), else bit 6 signal and bit 7 operator alone.
import { addAlarm, type Telemetry } from '../../positions/telemetry.js';
import type { Reader } from '../reader.js';
import type { DecodedPosition } from '../types.js';
import { ioValue } from './io.js';
import { atLastFix, type LastFix } from '../last-fix.js';
import { cellTower } from './network.js';
import { ioElements } from '../io-elements.js';

const EPOCH_2007 = Date.UTC(2007, 0, 1) / 1000;

/** GH3000 IO ids with a vocabulary meaning; every element stays under `io` by id as well. */
const GH3000: Record<number, (value: number, a: Telemetry) => void> = {
  1: (v, a) => (a.batteryLevel = v),
  20: (v, a) => (a.hdop = v / 10),
  22: (v, a) => (a.pdop = v / 10),
  67: (v, a) => (a.battery = v / 1000), // mV
  222: (v, a) => v === 1 && addAlarm(a, 'sos'), // SOS button
  240: (v, a) => (a.motion = v === 1),
};

export function decodeGh3000(r: Reader, count: number, last: LastFix | undefined): DecodedPosition[] {
  const positions: DecodedPosition[] = [];
  let place = last;
  for (let i = 0; i < count; i++) {
    const position = decodeRecord(r, place);
    positions.push(position);
    if (position.valid) place = position; // a later record without a location block stays here
  }
  return positions;
}

function decodeRecord(r: Reader, last: LastFix | undefined): DecodedPosition {
  const time = new Date(((r.u32() & 0x3fffffff) + EPOCH_2007) * 1000);
  const globalMask = r.u8();
  const io = ioElements();
  const attributes: Telemetry = { io };
  // Without a location block the record is placed at the last known one, not valid.
  const position = atLastFix(last, time, attributes);
  if (globalMask & 0x01) {
    const mask = r.u8();
    if (mask & 0x01) {
      position.lat = r.bytes(4).readFloatBE(0);
      position.lng = r.bytes(4).readFloatBE(0);
    }
    if (mask & 0x02) position.altitude = r.u16();
    if (mask & 0x04) position.heading = (r.u8() * 360) / 256;
    if (mask & 0x08) position.speed = r.u8();
    if (mask & 0x10) position.satellites = r.u8();
    if (mask & 0x20) {
      // The serving cell, with its signal and operator when the mask says so.
      const lac = r.u16();
      const cid = r.u16();
      const signal = mask & 0x40 ? r.u8() : undefined;
      const tower = cellTower(lac, cid, mask & 0x80 ? r.u32() : undefined);
      if (tower && signal !== undefined) tower.signalStrength = signal;
      if (tower) attributes.network = { cellTowers: [tower] };
    } else {
      if (mask & 0x40) attributes.rssi = r.u8();
      if (mask & 0x80) io.operator = r.u32();
    }
    position.valid = (mask & 0x01) !== 0 && position.satellites !== 0;
  }
  for (const [bit, width] of [[0x02, 1], [0x04, 2], [0x08, 4]] as const) {
    if (!(globalMask & bit)) continue;
    const n = r.u8();
    for (let k = 0; k < n; k++) {
      const id = r.u8();
      const value = ioValue(r.bytes(width)) as number;
      io[id] = value;
      GH3000[id]?.(value, attributes);
    }
  }
  return position;
}
