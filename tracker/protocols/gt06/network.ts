// GT06 messages that locate the device by what it hears instead of GPS: lists of cells (LBS) and
// Wi-Fi access points. They become positions marked invalid with the network data kept (see
// blocks.ts report()); signal strengths are stored as dBm.
import { addAlarm, type CellTower, type Telemetry, type WifiAccessPoint } from '../../positions/telemetry.js';
import { alarmOfByte } from './alarms.js';
import { addNetwork, type Found, type Message, readBcdDate, readDate, readMac, report, u64Number } from './blocks.js';

/** Messages read by decodeCells: several cells, and access points for some. */
export const CELL_LISTS = new Set([0x18, 0x24, 0x28, 0x2c, 0x2e, 0x33, 0x34, 0xa1, 0xa2, 0xa9]);
/** Of those, the ones without access points after the cells. */
const CELLS_ONLY = new Set([0x24, 0x28, 0x2e, 0x34, 0xa1]);
/** Wi-Fi messages with a BCD time (0x17 without an RFID tag, 0x69, 0xf3). */
export const WIFI_LISTS = new Set([0x17, 0x69, 0xf3]);

/**
 * Time, MCC/MNC, then a fixed number of cells (7; 6 on 0x33; counted on the Wanway S20 and 0xa9)
 * with their signal, the timing advance, and on most messages a counted list of access points.
 * 0xa9 (Wi-Fi alarm) ends with an alarm byte.
 */
export function decodeCells(m: Message): Found {
  const { proto, variant, r } = m;
  const a: Telemetry = {};
  const time = readDate(r);
  const advanceFirst = variant === 'wanwayS20' || variant === 'sl4x';
  if (advanceFirst) r.skip(1); // timing advance
  const mcc = r.u16();
  const mnc = mcc & 0x8000 || variant === 'sl4x' ? r.u16() : r.u8();
  const cell4g = proto === 0xa9 && r.u8() > 0;
  const count = variant === 'wanwayS20' || proto === 0xa9 ? r.u8() : proto === 0x33 ? 6 : 7;
  const cells: CellTower[] = [];
  for (let i = 0; i < count; i++) {
    let lac: number;
    let cid: number;
    if (proto === 0xa1 || proto === 0xa2 || cell4g) [lac, cid] = [r.i32(), u64Number(r)];
    else if (proto === 0x33 || proto === 0x34) [lac, cid] = [r.u16(), r.u32()];
    else [lac, cid] = [r.u16(), r.u24()];
    const signalStrength = -r.u8();
    // Unused slots are zero-filled.
    if (lac > 0) cells.push({ mobileCountryCode: mcc & 0x7fff, mobileNetworkCode: mnc, locationAreaCode: lac, cellId: cid, signalStrength });
  }
  if (!advanceFirst) r.skip(1); // timing advance
  const wifi: WifiAccessPoint[] = [];
  if (!CELLS_ONLY.has(proto)) {
    const n = r.u8();
    for (let i = 0; i < n; i++) wifi.push({ macAddress: readMac(r), signalStrength: -r.u8() });
  }
  addNetwork(a, cells, wifi);
  if (proto === 0xa9) {
    const code = r.u8();
    const language = r.u8();
    const alarm = alarmOfByte(((language >> 4) << 8) | code, variant);
    if (alarm) addAlarm(a, alarm);
  }
  return report(null, a, time);
}

/**
 * BCD time, access points (counted by the length field on 0x17/0x69, whose length field is not
 * a length; by a byte on 0xf3), then on 0x17/0x69 MCC/MNC and a counted list of 2-byte cells.
 * 0x17/0x69 are answered with their time echoed, 0xf3 not at all.
 */
export function decodeWifi(m: Message): Found {
  const { proto, r } = m;
  const a: Telemetry = {};
  const timeBytes = Buffer.from(r.buf.subarray(r.pos, r.pos + 6));
  const time = readBcdDate(r);
  const full = proto !== 0xf3;
  const count = full ? m.frame[2]! : r.u8();
  const wifi: WifiAccessPoint[] = [];
  for (let i = 0; i < count; i++) {
    if (!full) r.skip(2);
    const macAddress = readMac(r);
    wifi.push(full ? { macAddress, signalStrength: -r.u8() } : { macAddress });
  }
  const cells: CellTower[] = [];
  if (full) {
    const n = r.u8();
    const mcc = r.u16();
    const mnc = r.u8();
    for (let i = 0; i < n; i++) {
      cells.push({ mobileCountryCode: mcc, mobileNetworkCode: mnc, locationAreaCode: r.u16(), cellId: r.u16(), signalStrength: -r.u8() });
    }
  }
  addNetwork(a, cells, wifi);
  const reply = full ? Buffer.concat([Buffer.from([0x78, 0x78, 0x00, proto]), timeBytes, Buffer.from([0x0d, 0x0a])]) : undefined;
  return { ...report(null, a, time), reply };
}
