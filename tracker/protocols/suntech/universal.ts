// Suntech universal text reports: "<TYPE>;<id>;<mask hex>;<fields the mask selects>…". Bit 1 model,
// 2 firmware, 3 live/archive, 4+5 date and time, 6 cell id, 7 MCC, 8 MNC, 9 LAC, 10 RSSI, 11 lat,
// 12 lon, 13 speed, 14 course, 15 satellites, 16 fix, 17 inputs, 18 outputs, 19-21 the report's
// own fields (alert id, modifier, data for ALT; mode, reason, index otherwise), 22 reserved, 23 an
// assign mask whose bits each bring one more field. BLE reports have a fixed mask. Fields past the
// mask ("assign" values) are kept raw under io.
import { addAlarm, type CellTower, type Telemetry } from '../../positions/telemetry.js';
import type { DecodedPosition, DecodeResult, ProtocolState } from '../types.js';
import { alertAlarm } from './alarms.js';
import { Fields } from './fields.js';
import { atLastFix, resultOf, withFix } from './last-fix.js';
import { serialData } from './serial.js';

const BLE_MASK = 0b1100000110110;
const REPORTS = new Set(['STT', 'ALT', 'BLE', 'UEX']);
const bit = (mask: number, n: number) => (mask & (1 << n)) !== 0;
/**
 * A universal header names its type in three capitals. Anything else is not a report: the tail of
 * one cut by a stray "\r" in its serial data (";76;113771;…") would otherwise read as a report of
 * another unit, and a connection speaks for one unit (a new identifier would close it).
 */
const TYPE = /^[A-Z]{3}$/;

export function decodeUniversal(values: string[], conn: ProtocolState): DecodeResult {
  const type = values[0]!;
  if (!TYPE.test(type)) return { positions: [] };
  const f = new Fields(values, 1);
  const identity = f.text();
  if (!/^\w{1,20}$/.test(identity)) return { positions: [] };
  if (type === 'RES') {
    const text = values.slice(2).join(';');
    return atLastFix(conn, identity, resultOf(text), { commandReply: text });
  }
  // ALV is the keep-alive; other types (BSA, CMD echoes…) carry nothing we store.
  if (!REPORTS.has(type)) return { identity, positions: [], heartbeat: true };

  const mask = type === 'BLE' ? BLE_MASK : f.int(16);
  const io: Record<string, string | number | boolean> = { type };
  const attributes: Telemetry = { io };
  if (bit(mask, 1)) f.skip(); // model
  if (bit(mask, 2)) io.versionFw = f.text();
  if (bit(mask, 3) && f.text() === '0') attributes.archive = true;
  const deviceTime = bit(mask, 4) && bit(mask, 5) ? f.dateTime() : null;
  const cell: Partial<CellTower> = {};
  if (bit(mask, 6)) cell.cellId = f.int(16);
  if (bit(mask, 7)) cell.mobileCountryCode = f.int();
  if (bit(mask, 8)) cell.mobileNetworkCode = f.int();
  if (bit(mask, 9)) cell.locationAreaCode = f.int(16);
  if (cell.cellId !== undefined && cell.locationAreaCode !== undefined && (cell.mobileCountryCode ?? 0) >= 0 && (cell.mobileNetworkCode ?? 0) >= 0) attributes.network = { cellTowers: [cell as CellTower] };
  if (bit(mask, 10)) attributes.rssi = f.int();
  const lat = bit(mask, 11) ? f.number() : null;
  const lng = bit(mask, 12) ? f.number() : null;
  const position: DecodedPosition = { deviceTime: deviceTime ?? new Date(), valid: false, lat: lat ?? 0, lng: lng ?? 0, speed: 0, heading: 0, attributes };

  if (type === 'BLE') {
    position.valid = true;
    const count = f.int();
    for (let i = 1; i <= count; i++) {
      io[`tag${i}Rssi`] = f.int();
      f.skip(2); // rssi min, max
      io[`tag${i}Id`] = f.text();
      io[`tag${i}Samples`] = f.int();
      io[`tag${i}Major`] = f.int();
      io[`tag${i}Minor`] = f.int();
    }
  } else {
    if (bit(mask, 13)) position.speed = f.number();
    if (bit(mask, 14)) position.heading = f.number();
    if (bit(mask, 15)) position.satellites = f.int();
    if (bit(mask, 16)) position.valid = f.text() === '1';
    if (bit(mask, 17)) {
      const input = f.int();
      attributes.ignition = (input & 1) !== 0;
      attributes.input = input;
    }
    if (bit(mask, 18)) attributes.output = f.int();
    if (type === 'ALT') {
      if (bit(mask, 19)) {
        const code = f.int();
        io.alert = code;
        const alarm = alertAlarm(code);
        if (alarm) addAlarm(attributes, alarm);
      }
      if (bit(mask, 20)) io.alertModifier = f.text();
      if (bit(mask, 21)) io.alertData = f.text();
    } else if (type === 'UEX') {
      serialData(f, attributes);
    } else {
      if (bit(mask, 19)) io.mode = f.int();
      if (bit(mask, 20)) io.reason = f.int();
      if (bit(mask, 21)) io.index = f.int();
    }
    if (bit(mask, 22)) f.skip(); // reserved
    if (bit(mask, 23) && type !== 'UEX') {
      const assigned = f.int(16);
      for (let i = 0; i <= 30; i++) if (bit(assigned, i)) io[`io${i + 1}`] = f.text();
    }
    for (let n = 1; f.remaining > 0; n++) {
      const value = f.text();
      if (value) io[`assign${n}`] = value.slice(0, 256);
    }
  }
  // Without a time or a place the report cannot be a position: it still says what it carries.
  if (!deviceTime || lat === null || lng === null) return { identity, positions: [], attributes };
  return withFix(conn, { identity, positions: [position] });
}
