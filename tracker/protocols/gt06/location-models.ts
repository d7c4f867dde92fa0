// GT06 position messages that one model family defines with a layout of its own: X1 (0x34),
// iButton readers (0x61), TRX16i (0x36), SR411 mini (0x24), 0x38, and the AZ735 (0x32/0x33 in
// 79 79 framing).
import { addAlarm, type Telemetry } from '../../positions/telemetry.js';
import { Reader } from '../reader.js';
import { buildAck } from './ack.js';
import { addNetwork, type Found, type Message, readDate, readGps, report } from './blocks.js';
import { readCellBlock, readRfid } from './location.js';

/** X1: event word, GPS, terminal info, odometer, cell, driver id, voltages, I/O and analog inputs. */
export function decodeX1(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  r.skip(4); // data and alarm word
  const fix = readGps(r, a);
  r.skip(2); // terminal info
  a.odometer = r.u32();
  addNetwork(a, [{ mobileCountryCode: r.u16(), mobileNetworkCode: r.u8(), locationAreaCode: r.u16(), cellId: r.u32() }]);
  const driver = r.u32();
  if (driver > 0) a.driverUniqueId = String(driver);
  a.battery = r.u16() / 100;
  a.power = r.u16() / 100;
  const ports = r.u32();
  a.input = r.u8();
  a.output = r.u8();
  const analogInputs = (ports >>> 20) & 0x0f;
  for (let i = 1; i <= analogInputs; i++) a[`adc${i}`] = r.u16() / 100;
  return report(fix, a);
}

/** iButton reader: IMEI, GPS, cell, then the 6-byte key as a decimal number. */
export function decodeIButton(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  r.skip(8); // IMEI
  const fix = readGps(r, a);
  const cell = readCellBlock(m, false);
  if (cell) addNetwork(a, [cell]);
  a.driverUniqueId = String(r.u32() * 0x10000 + r.u16());
  return report(fix, a);
}

/** TRX16i location with RFID: GPS, cell, ACC, upload mode, archive flag, counters, voltages, tag. */
export function decodeTrx16iLocation(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  const fix = readGps(r, a);
  const cell = readCellBlock(m, false);
  if (cell) addNetwork(a, [cell]);
  a.ignition = r.u8() > 0;
  a.io = { uploadMode: r.u8() };
  a.archive = r.u8() > 0;
  a.odometer = r.u32();
  a.power = r.u16() / 100;
  a.battery = r.u8() / 10;
  a.engineHours = r.u24() * 60; // minutes
  readRfid(r, a);
  return report(fix, a);
}

/** SR411 mini: GPS, cell, ACC, external and battery voltage. */
export function decodeSr411(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  const fix = readGps(r, a);
  const cell = readCellBlock(m, false);
  if (cell) addNetwork(a, [cell]);
  a.ignition = r.u8() > 0;
  a.power = r.u16() / 100;
  a.battery = r.u16() / 100;
  return report(fix, a);
}

/** 0x38: GPS, upload mode and re-upload flag, then a typed cell. */
export function decodeGpsLbs8(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  const fix = readGps(r, a);
  r.skip(2); // upload mode, re-upload
  const cell = readCellBlock(m, false);
  if (cell) addNetwork(a, [cell]);
  return report(fix, a);
}

/** AZ735 alarm states (0x33). */
const AZ735_STATES: Record<number, (a: Telemetry) => void> = {
  0xa0: (a) => (a.armed = true),
  0xa1: (a) => (a.armed = false),
  0xa2: (a) => addAlarm(a, 'lowBattery'),
  0xa3: (a) => addAlarm(a, 'lowBattery'),
  0xa4: (a) => addAlarm(a, 'general'),
  0xa5: (a) => addAlarm(a, 'door'),
};

/**
 * AZ735 position (0x32) and alarm (0x33) in 79 79 framing: GPS with a length byte (0: no fix),
 * a length-prefixed cell and its signal, extra cells and access points (skipped), a status byte.
 * It expects its ACK in 79 79 framing too.
 */
export function decodeAz735(m: Message, serial: number): Found {
  const { r } = m;
  const a: Telemetry = {};
  const start = r.pos;
  const fix = readGps(r, a, { hasLength: true });
  const cell = readCellBlock(m, true);
  if (cell) {
    addNetwork(a, [cell]);
    a.rssi = r.u8();
  }
  r.skip(r.u8()); // additional cells
  r.skip(r.u8()); // access points
  const status = r.u8();
  a.io = { status };
  if (m.proto === 0x33) AZ735_STATES[status]?.(a);
  r.skip(r.u8()); // reserved extension
  // Without a fix the block still starts with the report time.
  const found = report(fix, a, fix ? null : readDate(new Reader(r.buf, start, start + 6)));
  return { ...found, reply: buildAck(m.proto, serial, true) };
}
