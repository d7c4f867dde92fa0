// The location report body (0x0200, and each record of the batches 0x0704/0x0210): alarm word,
// status word, coordinates in millionths of a degree, altitude (m), speed (0.1 km/h), course, BCD
// time, then additional-information items (id, length, value). Items with a general meaning become
// vocabulary keys in our units; manufacturer items keep Traccar's names under `io`.
import { addAlarm, type Alarm, type CellTower, type Telemetry, type WifiAccessPoint } from '../../positions/telemetry.js';
import type { Reader } from '../reader.js';
import type { DecodedPosition } from '../types.js';
import { decodeObdRt, type Io, readBcdTime, trimText } from './values.js';

/** Alarm word bits (JT/T 808 table 24) as the common firmwares use them. */
const ALARM_BITS: [number, Alarm][] = [
  [0, 'sos'], [1, 'overspeed'], [2, 'fatigueDriving'], [4, 'fault'], [5, 'gpsAntennaCut'], [6, 'gpsAntennaCut'],
  [7, 'lowBattery'], [8, 'powerOff'], [9, 'fault'], [10, 'fault'], [11, 'fault'], [15, 'vibration'],
  [16, 'tampering'], [17, 'tampering'], [18, 'lowBattery'], [19, 'parking'], [20, 'geofence'], [26, 'general'],
  [28, 'movement'], [29, 'accident'], [30, 'accident'],
];

/** What Buffer reads throw past the end of an item. */
const OUT_OF_BOUNDS = new Set(['ERR_OUT_OF_RANGE', 'ERR_BUFFER_OUT_OF_BOUNDS']);

/** The status word (ignition, blocked and charging flags, validity, hemispheres) and the coordinates. */
export function readCoordinates(r: Reader, a: Telemetry): Pick<DecodedPosition, 'valid' | 'lat' | 'lng'> {
  const status = r.u32();
  a.ignition = (status & 0x01) !== 0;
  a.blocked = (status & 0x400) !== 0;
  a.charge = (status & 0x4000000) !== 0;
  let lat = r.u32() / 1e6;
  let lng = r.u32() / 1e6;
  if (status & 0x04) lat = -lat; // bit 2: south
  if (status & 0x08) lng = -lng; // bit 3: west
  return { valid: (status & 0x02) !== 0, lat, lng };
}

/**
 * Coordinates, altitude, speed, course and time: the fixed part of a location report, as a position
 * carrying `a`. Built in one literal: a spread copy takes V8's slow path and slows every later step.
 */
export function readFix(r: Reader, a: Telemetry): DecodedPosition {
  const { valid, lat, lng } = readCoordinates(r, a);
  const altitude = r.i16();
  const speed = r.u16() / 10;
  const heading = r.u16() % 360;
  const deviceTime = readBcdTime(r) ?? new Date(0);
  return { deviceTime, valid, lat, lng, speed, heading, altitude, attributes: a };
}

export function decodeLocation(r: Reader): DecodedPosition {
  const a: Telemetry = {};
  const io: Io = {};
  const alarmWord = r.u32();
  if (alarmWord !== 0) for (const [bit, alarm] of ALARM_BITS) if (alarmWord & (2 ** bit)) addAlarm(a, alarm);
  const position = readFix(r, a);
  if (r.remaining === 18) {
    // A fixed tail some units send instead of items.
    r.skip(4); // remaining battery and mileage
    a.odometer = r.u32() * 1000;
    a.battery = r.u16() / 10;
    r.skip(4); // area id
    a.rssi = r.u8();
  } else {
    const cells: CellTower[] = [];
    const wifi: WifiAccessPoint[] = [];
    while (r.remaining >= 2) {
      const id = r.u8();
      const length = r.u8();
      if (id === 0x80) {
        // OBD data: one content byte, then OBD items to the end of the report, whatever the length says.
        r.skip(1);
        readExtension(r.bytes(r.remaining), a, io);
        break;
      }
      const at = r.skip(Math.min(length, r.remaining));
      if (readStandardItem(id, r.buf, at, r.pos - at, position)) continue;
      try {
        readItem(id, r.buf.subarray(at, r.pos), position, io, cells, wifi);
      } catch (err) {
        // An item shorter than its id's layout is skipped; the rest of the report stands.
        if (!OUT_OF_BOUNDS.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
    if (cells.length > 0 || wifi.length > 0) {
      a.network = {};
      if (cells.length > 0) a.network.cellTowers = cells.slice(0, 32);
      if (wifi.length > 0) a.network.wifiAccessPoints = wifi.slice(0, 32);
    }
  }
  if (Object.keys(io).length > 0) a.io = io;
  return position;
}

/**
 * The standard's items (mileage, fuel, speed, signals, analog inputs, signal strength, satellites),
 * which nearly every report carries, and 0xa7 (analog inputs as 0x2b), read where they lie in the
 * frame; true when `id` is one of them. One too short for its value sets nothing.
 */
function readStandardItem(id: number, b: Buffer, at: number, n: number, p: DecodedPosition): boolean {
  const a = p.attributes;
  switch (id) {
    case 0x01:
      if (n >= 4) a.odometer = b.readUInt32BE(at) * 100; // 0.1 km
      return true;
    case 0x02:
      if (n >= 2) {
        const fuel = b.readUInt16BE(at);
        a.fuel = fuel & 0x8000 ? fuel & 0x7fff : fuel / 10;
      }
      return true;
    case 0x03:
      if (n >= 2) a.obdSpeed = b.readUInt16BE(at) / 10;
      return true;
    case 0x25:
      if (n >= 4) a.input = b.readUInt32BE(at);
      return true;
    case 0x2b:
    case 0xa7:
      if (n >= 2) a.adc1 = b.readUInt16BE(at) / 100;
      if (n >= 4) a.adc2 = b.readUInt16BE(at + 2) / 100;
      return true;
    case 0x30:
      if (n >= 1) a.rssi = b[at]!;
      return true;
    case 0x31:
      if (n >= 1) p.satellites = b[at]!;
      return true;
    default:
      return false;
  }
}

/** One of the other additional-information items, read straight off its bytes: no helper closures made per item, as nowhere on the ingest path. */
function readItem(id: number, v: Buffer, p: DecodedPosition, io: Io, cells: CellTower[], wifi: WifiAccessPoint[]): void {
  const a = p.attributes;
  const n = v.length;
  switch (id) {
    case 0x06:
      a.batteryLevel = v.readUInt8(0);
      break;
    case 0x14:
      io.videoAlarm = v.readUInt32BE(0);
      break;
    case 0x33:
      if (n === 1) io.mode = v.readUInt8(0);
      else if (v.toString('latin1').startsWith('*M00')) a.battery = Number(v.toString('latin1', 10, 13)) / 100;
      break;
    case 0x51:
      if (n === 2 || n === 16) {
        for (let i = 0; i < n / 2; i++) {
          const t = v.readUInt16BE(i * 2);
          if (t !== 0xffff) a[`temp${i + 1}`] = (t & 0x8000 ? -(t & 0x7fff) : t) / 10;
        }
      }
      break;
    case 0x56:
      a.batteryLevel = v.readUInt8(0) * 10;
      break;
    case 0x57: {
      const driving = v.readUInt16BE(0);
      if (driving & 0x100) addAlarm(a, 'hardAcceleration');
      if (driving & 0x200) addAlarm(a, 'hardBraking');
      if (driving & 0x400) addAlarm(a, 'hardCornering');
      break;
    }
    case 0x60: {
      const event = v.readUInt16BE(0);
      a.event = event;
      if (event >= 0x61 && event <= 0x66) a.driverUniqueId = v.toString('latin1', 8, 16);
      break;
    }
    case 0x63:
      for (let i = 0; (i + 1) * 11 <= n; i++) {
        const at = i * 11;
        io[`lock${i + 1}Id`] = v.toString('hex', at, at + 6);
        io[`lock${i + 1}Battery`] = v.readUInt16BE(at + 6) / 1000;
        io[`lock${i + 1}Seal`] = v.readUInt8(at + 8) === 0x31;
      }
      break;
    case 0x64:
    case 0x65:
      io[id === 0x64 ? 'adasAlarm' : 'dmsAlarm'] = v.readUInt8(5);
      if (n >= 47) io.alarmLabel = v.toString('hex', n - 16, n);
      break;
    case 0x67:
      io.password = v.toString('latin1', 0, 8);
      break;
    case 0x68:
      a.batteryLevel = v.readUInt16BE(0) / 100;
      break;
    case 0x69:
      a.battery = v.readUInt16BE(0) / 100;
      break;
    case 0x70: {
      const kind = ({ 0x01: 'hardAcceleration', 0x02: 'hardBraking', 0x03: 'hardCornering', 0x16: 'accident' } as const)[v.readUInt8(5)];
      if (kind) addAlarm(a, kind);
      break;
    }
    case 0x77:
      for (let at = 0; at + 8 <= n; at += 8) {
        const tire = v.readUInt8(at);
        io[`tire${tire}SensorId`] = v.toString('hex', at + 1, at + 4);
        io[`tire${tire}Pressure`] = (v.readUInt16BE(at + 4) & 0x03ff) / 40;
        io[`tire${tire}Temp`] = v.readUInt8(at + 6) - 50;
        io[`tire${tire}Status`] = v.readUInt8(at + 7);
      }
      break;
    case 0x82:
    case 0xd3:
      a.power = v.readUInt16BE(0) / 10;
      break;
    case 0x91:
      a.battery = v.readUInt16BE(0) / 10;
      a.rpm = v.readUInt16BE(2);
      a.obdSpeed = v.readUInt8(4);
      a.throttle = Math.trunc((v.readUInt8(5) * 100) / 255);
      a.engineLoad = Math.trunc((v.readUInt8(6) * 100) / 255);
      a.coolantTemp = v.readUInt8(7) - 40;
      io.fuelConsumption = v.readUInt16BE(10) / 100;
      a.fuelUsed = v.readUInt16BE(20) / 100;
      break;
    case 0x94:
      if (n > 0) a.vin = v.toString('latin1');
      break;
    case 0xac:
      a.odometer = v.readUInt32BE(0);
      break;
    case 0xbc:
      io.driver = trimText(v.toString('latin1'));
      break;
    case 0xbd:
      a.driverUniqueId = v.toString('latin1');
      break;
    case 0xd0:
      if (v.readUInt32BE(0) & 0x08) addAlarm(a, 'vibration');
      break;
    case 0xd4:
    case 0xe1:
    case 0xe9:
      if (n === 1) {
        if (v.readUInt8(0) === 0xff) a.charge = true;
        else a.batteryLevel = v.readUInt8(0);
      } else if (id === 0xe1 && n >= 12 && (n - 4) % 8 === 0) {
        for (let at = 4; at + 8 <= n; at += 8) {
          cells.push({ mobileCountryCode: v.readUInt16BE(0), mobileNetworkCode: v.readUInt16BE(2), locationAreaCode: v.readUIntBE(at, 3), cellId: v.readUInt32BE(at + 3), signalStrength: v.readUInt8(at + 7) });
        }
      } else if (id === 0xe1 && n === 2) {
        a.power = v.readUInt16BE(0) / 10;
      } else {
        a.driverUniqueId = String(v.readUInt32BE(0));
      }
      break;
    case 0xd5:
      if (n === 2) a.battery = v.readUInt16BE(0) / 100;
      else {
        for (let i = 0; i < v.readUInt8(0) && 1 + (i + 1) * 13 <= n; i++) {
          const at = 1 + i * 13;
          io[`lock${i + 1}Id`] = v.toString('hex', at, at + 5);
          io[`lock${i + 1}Card`] = v.toString('hex', at + 5, at + 10);
          io[`lock${i + 1}Battery`] = v.readUInt8(at + 10);
          io[`lock${i + 1}Locked`] = (v.readUInt16BE(at + 11) & 0x20) === 0;
        }
      }
      break;
    case 0xda: {
      const state = v.readUInt8(2);
      io.string = (state & 0x01) !== 0;
      a.motion = (state & 0x04) !== 0;
      io.cover = (state & 0x08) !== 0;
      break;
    }
    case 0xe2:
      a.fuel = v.readUInt32BE(0) / 10;
      break;
    case 0xe3:
      a.batteryLevel = v.readUInt8(1);
      a.battery = v.readUInt16BE(2) / 100;
      break;
    case 0xe4:
      if (v.readUInt8(0) === 0) a.charge = true;
      a.batteryLevel = v.readUInt8(1);
      break;
    case 0xe5:
      if (n === 1) a.motion = v.readUInt8(0) === 1;
      break;
    case 0xe6:
      if (n >= 7 && v.toString('latin1', 0, 7) === '$OBD-RT') decodeObdRt(v.toString('latin1'), a, io);
      else if (n >= 11 && n % 11 === 0) {
        for (let at = 0; at < n; at += 11) {
          const sensor = v.readUInt8(at);
          if (sensor >= 1 && sensor <= 999) a[`temp${sensor}`] = customDouble(v, at + 7);
          io[`humidity${sensor}`] = customDouble(v, at + 9);
        }
      }
      break;
    case 0xe7:
      if (n === 8) {
        const alarms = v.readUInt16BE(0);
        if (alarms & 0x01) addAlarm(a, 'vibration');
        if (alarms & 0x0e) addAlarm(a, 'sos');
      }
      break;
    case 0xe8:
      // A padlock's lock state is 3 bytes; the Jimi JC cameras send a typed block here instead.
      if (n === 3) io.lockStatus = v.readUIntBE(0, 3);
      else readJimiBlock(v, a, io);
      break;
    case 0xea:
      if (n > 2) readExternalSensors(v, io);
      break;
    case 0xeb:
      readEb(v, a, io, cells, wifi);
      break;
    case 0xed:
      io.card = trimText(v.toString('latin1'));
      break;
    case 0xee:
      if (n === 6) {
        a.rssi = v.readUInt8(0);
        a.power = v.readUInt16BE(1) / 1000;
        a.battery = v.readUInt16BE(3) / 1000;
        p.satellites = v.readUInt8(5);
      }
      break;
    case 0xf0:
      for (let at = 0; at + 13 <= n; at += 13) {
        cells.push({ mobileCountryCode: v.readUInt16BE(at), mobileNetworkCode: v.readUInt16BE(at + 2), cellId: v.readUInt32BE(at + 4), locationAreaCode: v.readUInt32BE(at + 8), signalStrength: v.readUInt8(at + 12) });
      }
      break;
    case 0xf1:
      a.power = v.readUInt32BE(0) / 1000;
      break;
    case 0xf2:
      io.versionFw = v.toString('latin1');
      break;
    case 0xec:
    case 0xf4:
      for (let at = 0; at + 7 <= n; at += 7) {
        wifi.push({ macAddress: v.toString('hex', at, at + 6).replace(/(..)(?!$)/g, '$1:'), signalStrength: v.readInt8(at + 6) });
      }
      break;
    case 0xf5:
      if (n === 2) io.illuminance = v.readUInt16BE(0);
      break;
    case 0xf6:
      readF6(v, a, io);
      break;
    case 0xf7:
      if (n === 2) io.humidity = v.readUInt16BE(0) / 10;
      else {
        a.battery = v.readUInt32BE(0) / 1000;
        if (n >= 5 && (v.readUInt8(4) === 2 || v.readUInt8(4) === 3)) a.charge = true;
        if (n >= 6) a.batteryLevel = v.readUInt8(5);
      }
      break;
    case 0xf8:
      // 2 bytes: a second temperature; the AOVX units send working mode, IMEI and ICCID here.
      if (n >= 19) a.iccid = v.toString('hex', 9, 19);
      else a.temp2 = v.readUInt16BE(0) / 10 - 50;
      break;
    case 0xf9:
      readF9(v, a);
      break;
    case 0xfb:
      io.container = v.toString('latin1');
      break;
    case 0xfc:
      io.geofence = v.readUInt8(0);
      break;
    case 0xfe:
      if (n === 1) a.batteryLevel = v.readUInt8(0);
      else if (n === 2) a.power = v.readUInt16BE(0) / 10;
      else if (n === 4) a.odometer = v.readUInt32BE(0);
      else if (v.readUInt8(0) === 0x7c) readDrivingAlarms(v, a);
      break;
    default:
      break;
  }
}

/** A signed whole part and a fraction in 255ths (temperature and humidity of Bluetooth sensors). */
function customDouble(v: Buffer, at: number): number {
  const whole = v.readInt8(at);
  const sign = whole < 0 ? -1 : 1;
  return sign * (Math.abs(whole) + v.readUInt8(at + 1) / 255);
}

/** 0xEA: external sensors, typed sub-items. */
function readExternalSensors(v: Buffer, io: Io): void {
  let at = 1; // extended info type
  while (at + 2 <= v.length) {
    const type = v[at]!;
    const length = v[at + 1]!;
    at += 2;
    if (at + length > v.length) break;
    if (type === 0x13 && length >= 2) io.externalIlluminance = v.readUInt16BE(at);
    else if (type === 0x14 && length >= 2) io.externalAirPressure = v.readUInt16BE(at);
    else if (type === 0x15 && length >= 2) io.externalHumidity = v.readUInt16BE(at) / 10;
    else if (type === 0x16 && length >= 2) io.externalTemp = v.readUInt16BE(at) / 10 - 50;
    at += length;
  }
}

/** 0xEB: cells (MCC > 200), a time zone name, or sub-items with a 2-byte length and type. */
function readEb(v: Buffer, a: Telemetry, io: Io, cells: CellTower[], wifi: WifiAccessPoint[]): void {
  const n = v.length;
  if (n >= 2 && v.readUInt16BE(0) > 200 && (n - 3) % 5 === 0) {
    for (let at = 3; at + 5 <= n; at += 5) {
      cells.push({ mobileCountryCode: v.readUInt16BE(0), mobileNetworkCode: v[2]!, locationAreaCode: v.readUInt16BE(at), cellId: v.readUInt16BE(at + 2), signalStrength: v[at + 4]! });
    }
    return;
  }
  if (v.every((b) => b >= 0x20 && b < 0x7f)) {
    io.timezone = v.toString('latin1');
    return;
  }
  let at = 0;
  while (at + 4 <= n) {
    const length = v.readUInt16BE(at);
    const type = v.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (end > n || length < 2) break;
    const s = at + 4;
    switch (type) {
      case 0x0001:
        io.fuel1 = v.readUInt16BE(s) / 10;
        break;
      case 0x0023: {
        const fuel = Number(v.toString('latin1', s, s + 6));
        if (Number.isFinite(fuel)) io.fuel2 = fuel;
        break;
      }
      case 0x002d:
        if (length === 6) a.power = v.readUInt32BE(s) / 1000;
        else a.battery = v.readUInt16BE(s) / 1000;
        break;
      case 0x0089: {
        const alarms = v.readUInt32BE(s);
        if (!(alarms & 0x01)) addAlarm(a, 'powerOff');
        if (!(alarms & 0x1000)) addAlarm(a, 'removing');
        break;
      }
      case 0x00b2:
        a.iccid = v.toString('hex', s, s + 10).replace(/f+$/, '');
        break;
      case 0x00b9: {
        const list = v.toString('latin1', s + 1, end).split(',');
        for (let i = 0; i + 1 < list.length; i += 2) {
          const mac = list[i]!.toLowerCase();
          if (/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(mac)) wifi.push({ macAddress: mac, signalStrength: Number(list[i + 1]) || 0 });
        }
        break;
      }
      case 0x00c5: {
        const alarms = v.readUInt32BE(s);
        if (!(alarms & 0x40)) addAlarm(a, 'vibration');
        const motion = (alarms >>> 23) & 0x03;
        if (motion === 0) a.motion = true;
        else if (motion === 1) a.motion = false;
        break;
      }
      case 0x00c6: {
        const batteryAlarm = v[s]!;
        if (batteryAlarm === 0x03 || batteryAlarm === 0x04) addAlarm(a, 'lowBattery');
        io.batteryAlarm = batteryAlarm;
        break;
      }
      case 0x00ce:
        a.power = v.readUInt16BE(s) / 100;
        break;
      case 0x00d8:
        cells.push({ mobileCountryCode: v.readUInt16BE(s), mobileNetworkCode: v[s + 2]!, locationAreaCode: v.readUInt16BE(s + 3), cellId: v.readUInt32BE(s + 5) });
        break;
      case 0x00a8:
      case 0x00e1:
        a.batteryLevel = v[s]!;
        break;
      default:
        break;
    }
    at = end;
  }
}

/** 0xF6: air pressure, an IMEI, or a sensor event with a mask of readings. */
function readF6(v: Buffer, a: Telemetry, io: Io): void {
  const n = v.length;
  if (n === 2) {
    io.airPressure = v.readUInt16BE(0);
    return;
  }
  if (n === 8) {
    io.imei = v.toString('hex').slice(1);
    return;
  }
  const event = v[0]!;
  a.event = event;
  if (event === 2) a.motion = true;
  const mask = v[1]!;
  let at = 2;
  if (mask & 0x01) (io.lightSensor = v.readUInt16BE(at)), (at += 2);
  if (mask & 0x02) (a.temp1 = v.readInt16BE(at) / 10), (at += 2);
  if (mask & 0x04) (io.humidity = v.readInt16BE(at) / 10), (at += 2);
  if (mask & 0x08) (io.gSensor = `[${v.readInt16BE(at)},${v.readInt16BE(at + 2)},${v.readInt16BE(at + 4)}]`), (at += 6);
  if (mask & 0x10) at += 10;
  if (mask & 0x20) io.airPressure = v.readUInt16BE(at);
}

/** 0xF9: a mask of GNSS details; the HDOP and the external temperature are kept. */
function readF9(v: Buffer, a: Telemetry): void {
  const mask = v.readUInt16BE(0);
  let at = 2;
  if (mask & 0x01) at += 4;
  if (mask & 0x02) at += 4;
  if (mask & 0x04) (a.hdop = v.readUInt16BE(at) / 10), (at += 2);
  if (mask & 0x08) at += 6;
  if (mask & 0x20) at += 8;
  if (mask & 0x40) a.temp3 = v.readInt16BE(at) / 10;
}

/** 0xFE marked 7c: typed sub-items, of which 01 is a word of driving-behaviour alarms. */
function readDrivingAlarms(v: Buffer, a: Telemetry): void {
  const kinds: Alarm[] = ['hardAcceleration', 'hardBraking', 'hardCornering', 'accident', 'tampering'];
  for (let at = 1; at + 2 <= v.length; ) {
    const type = v[at]!;
    const length = v[at + 1]!;
    at += 2;
    if (type === 0x01 && at + 4 <= v.length) {
      const alarms = v.readUInt32BE(at);
      kinds.forEach((kind, bit) => alarms & (1 << bit) && addAlarm(a, kind));
    }
    at += length;
  }
}

/** 0x80: an OBD block of its own items (id, length, value). */
function readExtension(v: Buffer, a: Telemetry, io: Io): void {
  for (let at = 0; at + 2 <= v.length; ) {
    const type = v[at]!;
    const length = v[at + 1]!;
    const s = at + 2;
    at = s + length;
    if (at > v.length) break;
    switch (type) {
      case 0x01: a.odometer = v.readUInt32BE(s) * 100; break;
      case 0x02: a.fuel = v.readUInt16BE(s) / 10; break;
      case 0x03: a.obdSpeed = v.readUInt16BE(s) / 10; break;
      case 0x56: a.batteryLevel = v[s + 1]!; break;
      case 0x61: a.power = v.readUInt16BE(s) / 100; break;
      case 0x69: a.battery = v.readUInt16BE(s) / 100; break;
      case 0x80: a.obdSpeed = v[s]!; break;
      case 0x81: a.rpm = v.readUInt16BE(s); break;
      case 0x82: a.power = v.readUInt16BE(s) / 10; break;
      case 0x83: a.engineLoad = v[s]!; break;
      case 0x84: a.coolantTemp = v[s]! - 40; break;
      case 0x85: io.fuelConsumption = v.readUInt16BE(s); break;
      case 0x86: io.intakeTemp = v[s]! - 40; break;
      case 0x87: io.intakeFlow = v.readUInt16BE(s); break;
      case 0x88: io.intakePressure = v[s]!; break;
      case 0x89: a.throttle = v[s]!; break;
      case 0x8b: a.vin = v.toString('latin1', s, s + 17); break;
      case 0x8c: io.obdOdometer = v.readUInt32BE(s) * 100; break;
      case 0x8d: a.tripOdometer = v.readUInt16BE(s) * 1000; break;
      case 0x8e: a.fuel = v[s]!; break;
      case 0xa0: io.dtcs = v.toString('latin1', s, at).replace(/,/g, ' '); break;
      case 0xcc: a.iccid = v.toString('latin1', s, s + 20); break;
      default: break;
    }
  }
}

/** Event codes of the Jimi JC block (0xE8) that are alarms. */
const JIMI_ALARMS: Record<number, Alarm> = {
  0x0001: 'fault', 0x0400: 'hardAcceleration', 0x0412: 'hardAcceleration', 0x0401: 'hardBraking', 0x0413: 'hardBraking',
  0x0402: 'hardCornering', 0x0414: 'hardCornering', 0x0403: 'overspeed', 0x0405: 'accident', 0x0416: 'accident',
  0x0417: 'accident', 0x0406: 'vibration', 0x0407: 'tow', 0x0408: 'geofenceEnter', 0x0409: 'geofenceExit',
  0x040c: 'door', 0x0415: 'laneChange', 0x0c01: 'sos', 0x0c02: 'lowPower', 0x0c05: 'general', 0x0c0e: 'powerCut',
  0x0c0f: 'lowBattery', 0x0c10: 'powerOff', 0x0c12: 'tampering',
};

/** 0xE8 of the Jimi JC cameras: a 2-byte type, then upload mode, power state, a status list or an event. */
function readJimiBlock(v: Buffer, a: Telemetry, io: Io): void {
  const type = v.readUInt16BE(0);
  if (type === 0x2002) {
    io.uploadMode = v[3]!;
    io.buffered = v[4] === 1;
  } else if (type === 0x2003) {
    a.charge = v[3] === 1;
    const level = v[4]!;
    if (level >= 1 && level <= 6) a.batteryLevel = Math.trunc((level * 100) / 6);
    a.battery = v.readUInt16BE(5) / 100;
    a.rssi = v[7]!;
    a.power = v.readUInt16BE(8) / 100;
  } else if (type === 0x2005) {
    for (let at = 3; at + 3 <= v.length; ) {
      const id = v.readUInt16BE(at);
      const length = v[at + 2]!;
      const s = at + 3;
      at = s + length;
      if (at > v.length) break;
      if (id === 0x0001) a.battery = v.readUInt16BE(s) / 100;
      else if (id === 0x0002) io.dataUsage = v.readUInt32BE(s);
      else if (id === 0x0003) a.batteryLevel = v[s]!;
      else if (id === 0x0004) a.charge = v[s] === 0;
      else if (id === 0x0005) a.iccid = v.toString('hex', s, s + 10).slice(0, 19);
      else if (id === 0x0007) a.hdop = v.readUInt16BE(s) / 10;
      else if (id === 0x2001) a.power = v.readUInt16BE(s) / 10;
    }
  } else if (type === 0x0c03 || type === 0x0c04) {
    a.ignition = type === 0x0c03;
  } else {
    const alarm = JIMI_ALARMS[type];
    if (alarm) addAlarm(a, alarm);
  }
}
