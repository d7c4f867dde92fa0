// GT06 messages built around a GPS block: GPS, cell (LBS) and status blocks in the combination
// each message number has, then the tail a firmware appends (ACC, upload reason, odometer, RFID…).
import { addAlarm, type CellTower, type Telemetry } from '../../positions/telemetry.js';
import { type Reader, Truncated } from '../reader.js';
import { alarmOfByte, alarmOfTerminalInfo } from './alarms.js';
import { addNetwork, type Found, type Message, readDate, readGps, report, u64Number } from './blocks.js';
import { isImeiAt } from './variant.js';

const GPS = new Set([0x10, 0x11, 0x12, 0x16, 0x17, 0x1a, 0x1e, 0x22, 0x25, 0x26, 0x27, 0x2d, 0x31, 0x32, 0x37, 0x39, 0xa0, 0xa2, 0xa3, 0xa4]);
const LBS = new Set([0x11, 0x12, 0x16, 0x17, 0x19, 0x22, 0x25, 0x26, 0x27, 0x2d, 0x31, 0x32, 0x37, 0x39, 0xa0, 0xa2, 0xa3, 0xa4, 0xa5, 0xa7]);
const STATUS = new Set([0x13, 0x16, 0x19, 0x26, 0x27, 0x32, 0x36, 0x39, 0xa2, 0xa4, 0xa5]);
/** Status messages whose cell block has no length byte in front. */
const CELL_WITHOUT_LENGTH = new Set([0x19, 0x39, 0xa2, 0xa5]);
/** Messages whose alarm byte takes the high nibble of the following language byte as bits 8..11. */
const WIDE_ALARM = new Set([0x27, 0x39, 0xa4]);
/** Messages with a language byte after the status block. */
const LANGUAGE = new Set([0x27, 0x36, 0x39, 0xa2, 0xa4]);

/** True for the message numbers decodeLocation reads (0xa3 is a status message on SeeWorld units). */
export function isLocation(m: Message): boolean {
  return GPS.has(m.proto) || LBS.has(m.proto) || STATUS.has(m.proto);
}

/**
 * NT-series trackers (NT20, XT40…) put a location-source byte, the IMEI and the report time before
 * the GPS block of 0x22/0x25 and send the status block and counters after the cell.
 */
function isNtLayout(m: Message): boolean {
  const body = m.r.buf.subarray(m.r.pos, m.r.end);
  // The source byte is small where a GPS block has its year.
  return (m.proto === 0x22 || m.proto === 0x25) && body.length > 0 && body[0]! < 0x10 && isImeiAt(body, 1);
}

export function decodeLocation(m: Message): Found {
  const { proto, variant, r } = m;
  const a: Telemetry = {};
  const nt = isNtLayout(m);
  // The QH302R sends its IMEI in front of the GPS block of 0x12.
  if (proto === 0x12 && isImeiAt(r.buf.subarray(r.pos, r.end), 0)) r.skip(8);
  if (nt) {
    r.skip(1 + 8);
    readDate(r); // report time; the fix carries its own
  }
  const seeworldStatus = proto === 0xa3 && variant === 'seeworld';
  const gps = GPS.has(proto) && !seeworldStatus && (proto !== 0xa2 || variant === 'lw4g');
  const fix = gps ? readGps(r, a) : null;
  const status = (STATUS.has(proto) && !(proto === 0xa2 && variant !== 'lw4g')) || seeworldStatus || nt;
  try {
    if (LBS.has(proto) && !seeworldStatus && r.remaining > 0) {
      const hasLength = status && !CELL_WITHOUT_LENGTH.has(proto) && !(proto === 0x16 && variant === 'vxt01');
      const cell = readCellBlock(m, hasLength);
      if (cell) addNetwork(a, [cell]);
    }
    if (status) {
      if (proto === 0xa2) r.skip(1); // network indicator
      readStatus(m, a, nt);
    }
    if (LANGUAGE.has(proto) || nt) r.skip(1);
    readTail(m, a, nt, fix);
  } catch (err) {
    // A complete fix followed by a cut-off cell or status block is still a fix.
    if (!(err instanceof Truncated)) throw err;
  }
  return report(fix, a);
}

/**
 * A cell: MCC (top bit: 2-byte MNC), MNC, LAC, cell id, in the widths the message and model use.
 * With `hasLength` a length byte comes first; 0 means no cell (and the zeroed block some units
 * still send is skipped).
 */
export function readCellBlock(m: Message, hasLength: boolean): CellTower | null {
  const { proto, variant, r } = m;
  let length = 0;
  if (hasLength) {
    length = r.u8();
    if (length === 0) {
      if (r.remaining >= 45 && r.buf.subarray(r.pos + 9, r.pos + 45).every((b) => b === 0)) r.skip(45);
      return null;
    }
  }
  const cellType = proto === 0x38 || proto === 0x39 ? r.u8() : 0;
  const wide = cellType >= 3 || proto === 0xa5 || proto === 0xa0 || proto === 0xa2;
  const mcc = r.u16();
  const mnc = mcc & 0x8000 || proto === 0x11 || variant === 'sl4x' ? r.u16() : r.u8();
  const lac = wide ? r.i32() : r.u16();
  let cid: number;
  if (wide || variant === 'sl4x') cid = u64Number(r);
  else if (proto === 0x11 || proto === 0x61 || proto === 0x25 || variant === 'seeworld' || (variant === 'trx16i' && proto === 0x36)) cid = r.u32();
  else cid = r.u24();
  if (cellType >= 3) r.skip(2); // signal
  else if (proto === 0x38 || proto === 0x39) r.skip(1);
  if (length > 9) r.skip(length - 9); // extra bytes announced after the cell id
  return { mobileCountryCode: mcc & 0x7fff, mobileNetworkCode: mnc, locationAreaCode: lac, cellId: cid };
}

/** The terminal-information byte: ACC, charging, immobiliser and an alarm in bits 3..5. */
function readTerminalInfo(m: Message, a: Telemetry): void {
  const info = m.r.u8();
  // The course word's ACC bit, sampled with the fix, is kept when the fix has one.
  a.ignition ??= (info & 0x02) !== 0;
  a.charge = (info & 0x04) !== 0;
  a.blocked = (info & 0x80) !== 0;
  const alarm = alarmOfTerminalInfo(info, m.variant);
  if (alarm) addAlarm(a, alarm);
}

/** Terminal information, then voltage, GSM signal and alarm in the layout of the model. */
function readStatus(m: Message, a: Telemetry, nt: boolean): void {
  const { proto, variant, r } = m;
  readTerminalInfo(m, a);

  if (variant === 'obd6') {
    a.rssi = r.u16() & 0x1f; // satellites in use and in view above it
    const alarm = alarmOfByte(r.u8(), variant);
    if (alarm) addAlarm(a, alarm);
    r.skip(1); // language
    a.batteryLevel = r.u8();
    const mode = r.u8();
    a.power = r.u16() / 100;
    r.skip(1 + 2); // reserved, working time
    if (mode === 4) a.temp1 = r.i16() / 10;
    return;
  }
  if (variant === 'seeworld' && m.declared === 0x18) {
    r.skip(2 + 1); // extension bits, voltage level
    a.rssi = r.u8();
    a.power = r.u8();
    r.skip(3); // language, sound and light switches
    a.io = { ...a.io, steps: r.u32() };
    a.batteryLevel = r.u8();
    a.charge = r.u8() === 1;
    a.motion = r.u8() === 1;
    return;
  }
  if (proto === 0xa2 || nt) a.power = r.u16() / 100;
  const battery = r.u8();
  if (nt) a.battery = battery / 10;
  // A 0..6 level on the original GT06; newer models send the percentage directly.
  else if (battery <= 6) a.batteryLevel = Math.floor((battery * 100) / 6);
  else if (battery <= 100) a.batteryLevel = battery;
  a.rssi = r.u8();
  let code = r.u8();
  if (WIDE_ALARM.has(proto) && r.remaining > 0) code += (r.buf[r.pos]! >> 4) << 8;
  if (variant === 'vxt01') return; // its byte here is not an alarm
  const alarm = alarmOfByte(code, variant);
  if (alarm) addAlarm(a, alarm);
  if (variant === 'trx16i') a.event = code;
}

/** What follows the status block: model-specific counters, RFID, ACC and odometer. */
function readTail(m: Message, a: Telemetry, nt: boolean, fix: { altitude?: number } | null): void {
  const { proto, variant, r } = m;
  if (proto === 0x16 && variant === 'trx16i') {
    r.skip(1); // language
    readRfid(r, a);
  }
  if (proto === 0x36 || proto === 0x39) readStatusModules(r, a);
  if (proto === 0xa2 && variant === 'lw4g') {
    a.odometer = r.u32();
    a.engineHours = r.u32();
    r.skip(8); // terminal id
    a.input = r.u16();
  }
  if (proto === 0x12) readLegacyTail(m, a);
  if (proto === 0x22 && variant === 'seeworld') {
    a.ignition = r.u8() > 0;
    r.skip(2); // reporting mode, supplementary transmission
    a.odometer = r.u32();
    r.skip(4); // travel time
    a.temp1 = signMagnitude(r.u16(), 15) / 100;
    a.io = { ...a.io, humidity: r.u16() / 100 };
  }
  if (proto === 0x32 && variant === 'sl4x') setAltitude(fix, r.i16());
  if ((proto === 0x22 || proto === 0x37 || proto === 0x2d || proto === 0x31) && r.remaining >= 3 && !nt) {
    a.ignition = r.u8() > 0;
    a.event = r.u8(); // upload reason
    a.archive = r.u8() > 0; // re-uploaded from device memory
    if (variant === 'sl4x') {
      if (r.remaining > 2) a.odometer = r.u32();
      setAltitude(fix, r.i16());
    }
  }
  if (proto === 0x37) {
    const module = r.u16();
    const length = r.u8();
    if (module === 0x0027) a.power = r.u16() / 100;
    else if (module === 0x002e) a.odometer = r.u32();
    else if (module === 0x003b) a.accuracy = r.u16() / 100;
    else r.skip(length);
  }
  if (proto === 0x17) {
    // 0x17 reaches here only in its RFID layout (otherwise it is a Wi-Fi report).
    a.driverUniqueId = r.bytes(8).toString('hex');
    r.skip(1); // validity
  }
  if (nt) {
    a.odometer = r.u24();
    a.engineHours = r.u24() * 60; // minutes
    if (proto === 0x25) {
      const length = r.u8();
      if (length > 0) {
        r.skip(1); // driver id type
        a.driverUniqueId = r.bytes(length - 1).toString('hex');
      }
    }
  }
  if (r.remaining === 3 || r.remaining === 7) {
    a.ignition = r.u8() > 0;
    r.skip(1); // upload mode
    if (r.u8() > 0) a.archive = true;
  }
  if (r.remaining === 4) a.odometer = r.u32();
  if (proto === 0x27 || proto === 0xa4) a.io = { ...a.io, geofence: r.u8() };
}

/** The 0x12 tails of the models that extend it. */
function readLegacyTail(m: Message, a: Telemetry): void {
  const { variant, r } = m;
  if (variant === 'gt06eCard') {
    a.odometer = r.u32();
    const card = r.bytes(r.u8()).toString('ascii').trim();
    r.skip(2); // alarm, swiped
    a.io = { ...a.io, card };
  } else if (variant === 'benway') {
    const mask = r.u16();
    a.ignition = (mask & 0x8000) !== 0;
    a.in2 = (mask & 0x4000) !== 0;
    if (mask & 0x1000) a.temp1 = mask & 0x0200 ? -(mask & 0x01ff) : mask & 0x01ff;
    else a.adc1 = mask & 0x2000 ? mask & 0x03ff : (mask & 0x03ff) / 10;
  } else if (variant === 'vxt01' || variant === 's5') {
    readTerminalInfo(m, a);
    a.power = r.u16() / 100;
    a.rssi = r.u8();
    if (variant === 'vxt01') {
      r.skip(1); // alarm extension
      return;
    }
    const alarm = alarmOfByte(r.u8(), variant);
    if (alarm) addAlarm(a, alarm);
    a.io = { ...a.io, oil: r.u16() };
    a.temp1 = signMagnitude(r.u8(), 7);
    a.odometer = r.u32() * 10;
  } else if (variant === 'wetrust') {
    a.odometer = r.u32();
    const card = r.bytes(r.u8()).toString('ascii');
    if (r.u8() > 0) addAlarm(a, 'general');
    a.io = { ...a.io, card, cardStatus: r.u8(), drivingTime: r.u16() };
  }
}

/** Type-length-value modules of the Jimi 4G status messages. */
function readStatusModules(r: Reader, a: Telemetry): void {
  while (r.remaining > 0) {
    const type = r.u16();
    const length = r.u8();
    if (type === 0x0018) a.battery = r.u16() / 100;
    else if (type === 0x0032) a.io = { ...a.io, startupStatus: r.u8() };
    else if (type === 0x006a) a.batteryLevel = r.u8();
    else r.skip(length);
  }
}

/** An 8-byte RFID tag as hex; all zeros means no tag. */
export function readRfid(r: Reader, a: Telemetry): void {
  const rfid = r.bytes(8).toString('hex');
  if (!/^0+$/.test(rfid)) a.driverUniqueId = rfid;
}

/** A value whose top bit (`bit`) is the sign. */
function signMagnitude(value: number, bit: number): number {
  const magnitude = value & ((1 << bit) - 1);
  return value & (1 << bit) ? -magnitude : magnitude;
}

function setAltitude(fix: { altitude?: number } | null, altitude: number): void {
  if (fix) fix.altitude = altitude;
}
