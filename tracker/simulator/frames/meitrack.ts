// Meitrack frames as MVT/T-series units send them: AAA reports (event 35 is the timed report),
// the AAC keep-alive and the answer to a command, with the length and byte-sum checksum.
import { meitrackChecksum } from '../../protocols/meitrack/checksum.js';
import type { DeviceAlarm, DeviceFix, DeviceState } from './fix.js';

/** Event codes of the alarms a simulated unit plays. */
const EVENTS: Record<DeviceAlarm, number> = { sos: 1, powerCut: 23, vibration: 35, overspeed: 19, lowBattery: 17 };
const TIMED_REPORT = 35;

const two = (n: number) => String(n).padStart(2, '0');

/** "$$<flag><length>,<body>*<checksum>\r\n", the length counted from the first comma. */
export function meitrackFrame(body: string, flag = 'Q'): Buffer {
  const head = `$$${flag}${body.length + 6},${body}*`;
  return Buffer.from(`${head}${meitrackChecksum(Buffer.from(head, 'latin1'))}\r\n`, 'latin1');
}

function report(imei: string, event: number, fix: DeviceFix, state: DeviceState): Buffer {
  const t = fix.time;
  const time = two(t.getUTCFullYear() % 100) + two(t.getUTCMonth() + 1) + two(t.getUTCDate()) + two(t.getUTCHours()) + two(t.getUTCMinutes()) + two(t.getUTCSeconds());
  const power = Math.round((state.power ?? 12.6) * 100).toString(16).toUpperCase().padStart(4, '0');
  return meitrackFrame(
    [
      imei,
      'AAA',
      event,
      fix.lat.toFixed(6),
      fix.lng.toFixed(6),
      time,
      fix.valid === false ? 'V' : 'A',
      fix.satellites ?? 9,
      21,
      Math.round(fix.speed),
      Math.round(fix.heading) % 360,
      '0.9',
      Math.round(fix.altitude ?? 0),
      0,
      0,
      '724|5|1F2E|0001A2B3',
      state.ignition ? '0400' : '0000',
      `0000|0000|0000|0191|${power}`,
      '',
      '',
      3,
    ].join(','),
  );
}

export const meitrackPosition = (imei: string, fix: DeviceFix, state: DeviceState = {}): Buffer => report(imei, TIMED_REPORT, fix, state);
export const meitrackAlarm = (imei: string, fix: DeviceFix, alarm: DeviceAlarm, state: DeviceState = {}): Buffer => report(imei, EVENTS[alarm], fix, state);
export const meitrackHeartbeat = (imei: string): Buffer => meitrackFrame(`${imei},AAC,1`, 'z');
/** The answer to a command: its code and result ("C01,OK"). */
export const meitrackCommandReply = (imei: string, text: string): Buffer => meitrackFrame(`${imei},${text}`, 'A');
