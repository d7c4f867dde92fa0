// 0x0900 transparent data: what an attached device relays, told apart by its first byte. 0x40 a
// text line (a card reader's GTSL line carries the driver id), 0x41 the OBD reader's live line, 0xF0
// the OBD box's data stream, fault codes and driving events with the fix they happened at, 0xFF a
// bare fix, 0x53/0x54 a fix with Bluetooth tags or sensor readings.
import { addAlarm, type Alarm, type Telemetry } from '../../positions/telemetry.js';
import type { Reader } from '../reader.js';
import type { DecodedPosition, DecodeResult } from '../types.js';
import { readCoordinates, readFix } from './location.js';
import { decodeObdRt, type Io, readBcdTime, trimText } from './values.js';

type Found = Pick<DecodeResult, 'positions' | 'attributes'>;

/** Data-stream ids of 0xF0 subtype 01 (OBD box) with their vocabulary key or io name and scale. */
const OBD_STREAM: Record<number, [key: string, read: (r: Reader) => number]> = {
  0x0102: ['odometer', (r) => r.u32() * 100],
  0x0528: ['odometer', (r) => r.u32() * 100],
  0x0546: ['odometer', (r) => r.u32() * 100],
  0x0103: ['fuel', (r) => r.u32() / 100],
  0x052a: ['fuel', (r) => r.u16() / 100],
  0x052b: ['fuel', (r) => r.u8()],
  0x0105: ['fuelUsed', (r) => r.u32() / 100],
  0x052c: ['fuelUsed', (r) => r.u32() / 100],
  0x052d: ['coolantTemp', (r) => r.u8() - 40],
  0x0530: ['power', (r) => r.u16() / 1000],
  0x0535: ['obdSpeed', (r) => r.u16() / 10],
  0x0536: ['rpm', (r) => r.u16()],
  0x0547: ['throttle', (r) => r.u8()],
  0x0548: ['throttle', (r) => r.u8()],
};

const EVENT_ALARMS: Record<number, Alarm> = {
  0x01: 'powerRestored', 0x02: 'powerCut', 0x0e: 'idle', 0x1a: 'hardAcceleration', 0x1b: 'hardBraking',
  0x1c: 'hardCornering', 0x1d: 'laneChange', 0x1e: 'laneChange', 0x1f: 'laneChange', 0x23: 'fatigueDriving',
  0x25: 'overspeed', 0x26: 'accident', 0x27: 'accident', 0x28: 'accident', 0x31: 'door', 0x32: 'door',
};

export function decodeTransparent(r: Reader): Found {
  const type = r.u8();
  const a: Telemetry = {};
  const io: Io = {};
  const done = (position: DecodedPosition | null): Found => {
    if (Object.keys(io).length > 0) a.io = { ...a.io, ...io };
    if (position) return { positions: [position] };
    return Object.keys(a).length > 0 ? { positions: [], attributes: a } : { positions: [] };
  };
  switch (type) {
    case 0x40: {
      const line = trimText(r.bytes(r.remaining).toString('latin1'));
      const gtsl = line.startsWith('GTSL') ? line.split('|')[4] : undefined;
      if (gtsl) a.driverUniqueId = gtsl.slice(0, 256);
      else if (line) io.data = line.slice(0, 4096);
      return done(null);
    }
    case 0x41:
      decodeObdRt(trimText(r.bytes(r.remaining).toString('latin1')), a, io);
      return done(null);
    case 0xf0:
      return done(readObdBox(r, a, io));
    case 0xff: {
      const deviceTime = readBcdTime(r);
      const lat = r.i32() / 1e6;
      const lng = r.i32() / 1e6;
      const altitude = r.i16();
      const speed = r.u16() / 10;
      const heading = r.u16() % 360;
      return done(deviceTime ? { deviceTime, valid: true, lat, lng, speed, heading, altitude, attributes: a } : null);
    }
    case 0x53:
    case 0x54: {
      const position = readFix(r, a);
      if (type === 0x53) readTags(r, io);
      else readSensors(r, a, io);
      return done(position);
    }
    default:
      return { positions: [] };
  }
}

/** 0xF0: time, archive flag, vehicle type, then a subtype's data and (for 01..03) the fix. */
function readObdBox(r: Reader, a: Telemetry, io: Io): DecodedPosition | null {
  const time = readBcdTime(r);
  if (r.u8() > 0) a.archive = true;
  r.skip(1); // vehicle type
  const subtype = r.u8();
  if (subtype === 0x01) {
    const count = r.u8();
    for (let i = 0; i < count; i++) {
      const id = r.u16();
      const length = r.u8();
      const known = OBD_STREAM[id];
      if (known) (a as Record<string, unknown>)[known[0]] = known[1](r);
      else if (id === 0xfeec) a.vin = r.bytes(length).toString('latin1');
      else if (length === 1) io[`io${id}`] = r.u8();
      else if (length === 2) io[`io${id}`] = r.u16();
      else if (length === 4) io[`io${id}`] = r.u32();
      else r.skip(length);
    }
  } else if (subtype === 0x02) {
    const codes: string[] = [];
    const systems = r.u16();
    for (let i = 0; i < systems; i++) {
      r.skip(4); // system id
      const count = r.u16();
      for (let j = 0; j < count; j++) {
        r.skip(8); // code and status
        codes.push(trimText(r.bytes(r.u16()).toString('latin1')));
      }
    }
    io.dtcs = codes.join(' ').slice(0, 4096);
  } else if (subtype === 0x03) {
    const count = r.u8();
    for (let i = 0; i < count; i++) {
      const alarm = EVENT_ALARMS[r.u8()];
      if (alarm) addAlarm(a, alarm);
      r.skip(r.u8());
    }
  } else {
    return null;
  }
  const { valid, lat, lng } = readCoordinates(r, a);
  return time ? { deviceTime: time, valid, lat, lng, speed: 0, heading: 0, attributes: a } : null;
}

function readTags(r: Reader, io: Io): void {
  r.skip(1); // node count across the packets
  while (r.remaining > 0) {
    const index = r.u8() + 1;
    io[`tag${index}Mac`] = r.bytes(6).toString('hex');
    io[`tag${index}Rssi`] = (r.u8() << 24) >> 24;
    io[`tag${index}Data`] = r.bytes(r.u8()).toString('hex');
  }
}

function readSensors(r: Reader, a: Telemetry, io: Io): void {
  while (r.remaining > 0) {
    const mask = r.u16();
    r.skip(6); // sample time
    if (mask & 0x01) io.lightSensor = r.u16();
    if (mask & 0x02) {
      io.deviceTemp = r.i16() / 10;
      io.humidity = r.i16() / 10;
    }
    if (mask & 0x04) a.temp3 = r.i16() / 10;
    if (mask & 0x08) r.skip(6); // acceleration
    if (mask & 0x10) io.airPressure = r.u16();
  }
}
