// Suntech decoding. Text reports are semicolon-separated; the first field says which family:
//   universal  "<TYPE>;<id>;<mask hex>;…"  (STT, ALT, UEX, RES, BLE, ALV…): the mask says which fields follow
//   ST300/ST600/SA200  "<model><TYPE>;<id>;…"  (STT, ALT, EMG, EVT, UEX, ALV, CMD;Res)
//   ST4xx  "ST4xxSTT;<id>;…"  seven cells, then the fix
//   ST910  "ST910;<Location|Emergency|Alert>;<id>;…"
//   travel report "<model>HTE;<id>;…;<driver>"
// Binary reports: universal 0x81/0x82 (mask-driven, like the text) and compressed 0x02.
// Suntech units expect no acknowledgement.
import { addAlarm, type Telemetry } from '../../positions/telemetry.js';
import { emptyWhenTruncated } from '../reader.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';
import { alertAlarm, emergencyAlarm } from './alarms.js';
import { decodeBinary, decodeCompressed } from './binary.js';
import { Fields } from './fields.js';
import { atLastFix, resultOf, withFix } from './last-fix.js';
import { serialData } from './serial.js';
import { decodeUniversal } from './universal.js';

export const decodeSuntech = emptyWhenTruncated((frame: Buffer, conn: ProtocolState): DecodeResult => {
  if (frame[0] === 0x02) return decodeCompressed(frame);
  if (frame[0] === 0x81 || frame[0] === 0x82) return decodeBinary(frame);
  const values = frame.toString('latin1').split(';');
  const prefix = values[0]!;
  if (prefix.length < 5) return decodeUniversal(values, conn);
  if (prefix.endsWith('HTE')) return travelReport(values, conn);
  if (prefix.startsWith('ST9')) return decodeSt910(values);
  if (prefix.startsWith('ST4')) return decodeSt4(values, conn);
  if (prefix.startsWith('S')) return decodeLegacy(prefix.slice(0, 5), prefix.slice(5), values, conn);
  return { positions: [] };
});

const LEGACY_TYPES = new Set(['STT', 'EMG', 'EVT', 'ALT', 'UEX']);

/** ST300/ST340/ST500/ST600/SA200 reports. */
function decodeLegacy(model: string, type: string, values: string[], conn: ProtocolState): DecodeResult {
  const f = new Fields(values, 1);
  const commandResult = f.peek() === 'Res';
  if (commandResult) f.skip();
  const identity = f.text();
  if (!/^\w{1,20}$/.test(identity)) return { positions: [] };
  if (commandResult) {
    const text = values.slice(f.index).join(';');
    return atLastFix(conn, identity, resultOf(text), { commandReply: text });
  }
  // ALV is the keep-alive; other types carry nothing we store.
  if (!LEGACY_TYPES.has(type)) return { identity, positions: [], heartbeat: true };

  if (model.startsWith('ST3') || model === 'ST500' || model === 'ST600') f.skip(); // model code
  const attributes: Telemetry = { io: { type, versionFw: f.text() } };
  const deviceTime = f.dateTime();
  if (model !== 'ST500') {
    const cellId = f.int(16);
    if (model === 'ST600') {
      const mcc = f.int();
      const mnc = f.int();
      const lac = f.int(16);
      const rssi = f.int();
      if (mcc >= 0 && mnc >= 0) attributes.network = { cellTowers: [{ cellId, locationAreaCode: lac, mobileCountryCode: mcc, mobileNetworkCode: mnc, signalStrength: rssi }] };
    }
  }
  const lat = f.number();
  const lng = f.number();
  const speed = f.number();
  const heading = f.number();
  const satellites = f.int();
  const valid = f.text() === '1';
  attributes.odometer = f.number();
  attributes.power = f.number();
  const io = f.text();
  if (/^[01]{6}/.test(io)) {
    attributes.ignition = io[0] === '1';
    [1, 2, 3].forEach((i) => (attributes[`in${i}`] = io[i] === '1'));
    [1, 2].forEach((i) => (attributes[`out${i}`] = io[i + 3] === '1'));
  }
  if (type === 'STT') {
    attributes.io!.status = f.int();
    attributes.io!.index = f.int();
  } else if (type === 'EMG') {
    const alarm = emergencyAlarm(f.int());
    if (alarm) addAlarm(attributes, alarm);
  } else if (type === 'EVT') {
    attributes.event = f.int();
  } else if (type === 'ALT') {
    const code = f.int();
    attributes.io!.alert = code;
    const alarm = alertAlarm(code);
    if (alarm) addAlarm(attributes, alarm);
  } else {
    serialData(f, attributes);
  }
  hourMeter(f, attributes);
  const position: DecodedPosition = { deviceTime, valid, lat, lng, speed, heading, satellites, attributes };
  return withFix(conn, { identity, positions: [position] });
}

/**
 * Units with the hour meter enabled (HBM) add engine minutes, backup battery volts and the
 * live/archive flag, then either the driver id and whether it is registered, a serving cell
 * (id, MCC, MNC, signal, area), or both. They are read when they are there and look right;
 * anything else after the report's own fields is left alone.
 */
function hourMeter(f: Fields, attributes: Telemetry): void {
  const [minutes, battery, archive] = [f.peek(), f.values[f.index + 1], f.values[f.index + 2]];
  if (!/^\d{1,9}$/.test(minutes ?? '') || !/^\d{1,2}\.\d{1,2}$/.test(battery ?? '') || !/^[01]$/.test(archive ?? '')) return;
  attributes.engineHours = f.int() * 60;
  attributes.battery = f.number();
  if (f.text() === '0') attributes.archive = true;
  if (f.remaining === 2 || f.remaining >= 7) {
    const driver = f.text();
    if (driver) attributes.driverUniqueId = driver.slice(0, 256);
    f.skip(); // registered
  }
  if (f.remaining >= 5 && f.values.slice(f.index, f.index + 5).every((v) => /^-?\d{1,9}$/.test(v))) {
    const [cellId, mcc, mnc, signalStrength, lac] = f.values.slice(f.index, f.index + 5).map(Number) as [number, number, number, number, number];
    if (cellId >= 0 && lac >= 0 && mcc >= 0 && mnc >= 0) attributes.network = { cellTowers: [{ cellId, locationAreaCode: lac, mobileCountryCode: mcc, mobileNetworkCode: mnc, signalStrength }] };
  }
}

/** ST4xx: seven cells (the serving one first), then the fix, which may be empty. */
function decodeSt4(values: string[], conn: ProtocolState): DecodeResult {
  const type = values[0]!.slice(5);
  const f = new Fields(values, 1);
  const identity = f.text();
  if (type !== 'STT' && type !== 'ALT') return { identity, positions: [], heartbeat: true };
  const attributes: Telemetry = { io: { type, versionFw: f.text() } };
  const model = f.int();
  if (model === 41) f.skip(); // variant
  const cellTowers = [];
  for (let i = 0; i < 7; i++) {
    const cellId = f.int();
    const mcc = f.int();
    const mnc = f.int();
    // The serving cell gives its signal before its area, the neighbours after.
    const [signalStrength, locationAreaCode] = i === 0 ? [f.int(), f.int()] : [f.int(), f.int()].reverse();
    f.skip(); // timing advance
    if (cellId > 0) cellTowers.push({ cellId, locationAreaCode: locationAreaCode!, mobileCountryCode: mcc, mobileNetworkCode: mnc, signalStrength });
  }
  if (cellTowers.length) attributes.network = { cellTowers };
  attributes.battery = f.number();
  if (f.text() === '0') attributes.archive = true;
  attributes.io!.index = f.int();
  attributes.io!.status = f.int();
  if (f.peek()?.length === 3) f.skip(); // collaborative network
  if (model === 41) {
    f.skip(2); // collaborative network, temperature
    attributes.motion = f.int() === 2;
  }
  if (!f.peek()) return atLastFix(conn, identity, attributes);
  const deviceTime = f.dateTime();
  const lat = f.number();
  const lng = f.number();
  const speed = f.number();
  const heading = f.number();
  const satellites = f.int();
  const valid = f.text() === '1';
  return withFix(conn, { identity, positions: [{ deviceTime, valid, lat, lng, speed, heading, satellites, attributes }] });
}

/** ST910 personal units: Location, or Emergency / Alert (a general alarm). */
function decodeSt910(values: string[]): DecodeResult {
  const f = new Fields(values, 1);
  const type = f.text();
  if (type !== 'Location' && type !== 'Emergency' && type !== 'Alert') return { positions: [] };
  const identity = f.text();
  const attributes: Telemetry = {};
  if (type !== 'Location') addAlarm(attributes, 'general');
  // Alerts of the newer firmware leave out the version: the date then comes third.
  const withVersion = !/^\d{8}$/.test(f.peek() ?? '');
  if (withVersion) attributes.io = { versionFw: f.text() };
  const deviceTime = f.dateTime();
  // The newer firmware puts the cell id (hex, 10 digits) before the fix and the odometer after.
  const newer = /^[0-9a-fA-F]{10}$/.test(f.peek() ?? '');
  if (newer) f.skip();
  const lat = f.number();
  const lng = f.number();
  const speed = f.number();
  const heading = f.number();
  const valid = f.text() === '1';
  if (newer) attributes.odometer = f.number();
  return { identity, positions: [{ deviceTime, valid, lat, lng, speed, heading, attributes }] };
}

/** A travel report: the driver id comes last; the unit sends no fix with it. */
function travelReport(values: string[], conn: ProtocolState): DecodeResult {
  const identity = values[1] ?? '';
  if (!/^\w{1,20}$/.test(identity)) return { positions: [] };
  const driver = values[values.length - 1]!.trim();
  return atLastFix(conn, identity, driver ? { driverUniqueId: driver.slice(0, 256) } : {});
}
