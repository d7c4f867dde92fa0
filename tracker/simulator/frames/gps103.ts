// GPS103 frames the way Coban GPS103/TK103-2 units send them: the "##,imei:…,A;" handshake, the
// bare-IMEI heartbeat, "tracker" reports, alarms named in the keyword field and reports without a
// fix that give the serving cell. The unit's clock is set to UTC here, so local and UTC times agree.
import type { DeviceAlarm, DeviceFix, DeviceState } from './fix.js';
import { KMH_PER_KNOT } from './fix.js';
import { degMin } from './h02.js';

/** The keyword each alarm travels under. */
const ALARM_KEYWORDS: Record<DeviceAlarm, string> = {
  sos: 'help me',
  lowBattery: 'low battery',
  overspeed: 'speed',
  powerCut: 'ac alarm',
  vibration: 'sensor alarm',
};

/** yymmddHHMMSS, the report's (local) time. */
const stamp = (t: Date) => t.toISOString().replace(/\D/g, '').slice(2, 14);

export function gps103Handshake(imei: string): Buffer {
  return Buffer.from(`##,imei:${imei},A;`, 'latin1');
}

export function gps103Heartbeat(imei: string): Buffer {
  return Buffer.from(`${imei};`, 'latin1');
}

/** A report with a fix: keyword, time, F, UTC time, validity, position, knots, course, altitude, ACC, door, fuel %. */
export function gps103Position(imei: string, fix: DeviceFix, state: DeviceState = {}, keyword = 'tracker'): Buffer {
  const fields = [
    `imei:${imei}`,
    keyword,
    stamp(fix.time),
    '',
    'F',
    `${stamp(fix.time).slice(6)}.000`,
    fix.valid === false ? 'V' : 'A',
    degMin(fix.lat, 2),
    fix.lat >= 0 ? 'N' : 'S',
    degMin(fix.lng, 3),
    fix.lng >= 0 ? 'E' : 'W',
    (fix.speed / KMH_PER_KNOT).toFixed(2),
    fix.heading.toFixed(2),
    fix.altitude === undefined ? '' : fix.altitude.toFixed(1),
    state.ignition ? '1' : '0',
    '0',
    state.fuelLevel === undefined ? '' : `${state.fuelLevel.toFixed(2)}%`,
    '',
    '',
  ];
  return Buffer.from(`${fields.join(',')};`, 'latin1');
}

export function gps103Alarm(imei: string, fix: DeviceFix, alarm: DeviceAlarm, state: DeviceState = {}): Buffer {
  return gps103Position(imei, fix, state, ALARM_KEYWORDS[alarm]);
}

/** A report without a fix ("L"): the serving cell's area and id in hex. */
export function gps103CellReport(imei: string, time: Date, lac: number, cid: number, keyword = 'tracker'): Buffer {
  return Buffer.from(`imei:${imei},${keyword},${stamp(time).slice(0, 10)},,L,,,${lac.toString(16)},,${cid.toString(16)},,,;`, 'latin1');
}
