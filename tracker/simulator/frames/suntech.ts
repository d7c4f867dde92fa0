// Suntech frames the way universal-protocol units (ST300 family) send them: STT reports with the
// full field mask, ALT alerts, the ALV keep-alive and the RES answer to a command, each ended by
// '\r'. Units send no login; the id is in every report.
import type { DeviceAlarm, DeviceFix, DeviceState } from './fix.js';

/** Alert ids of the universal protocol for the alarms a simulated unit plays. */
const ALERTS: Record<DeviceAlarm, number> = { sos: 42, powerCut: 41, vibration: 15, overspeed: 1, lowBattery: 14 };

/** Model, firmware, mode, date, time, cell (id, MCC, MNC, LAC), RSSI, fix, inputs, outputs, the report's own 3 fields. */
const MASK = '3FFFFF';

const two = (n: number) => String(n).padStart(2, '0');

/** Suntech's date and time fields: "YYYYMMDD" and "HH:MM:SS", UTC. */
export function suntechDateTime(t: Date): [string, string] {
  return [`${t.getUTCFullYear()}${two(t.getUTCMonth() + 1)}${two(t.getUTCDate())}`, `${two(t.getUTCHours())}:${two(t.getUTCMinutes())}:${two(t.getUTCSeconds())}`];
}

function fields(id: string, fix: DeviceFix, state: DeviceState): string[] {
  return [
    id,
    MASK,
    '91',
    '1.0.8',
    '1',
    ...suntechDateTime(fix.time),
    '0001A2B3',
    '724',
    '5',
    '1F2E',
    '21',
    fix.lat.toFixed(6),
    fix.lng.toFixed(6),
    fix.speed.toFixed(2),
    fix.heading.toFixed(2),
    String(fix.satellites ?? 9),
    fix.valid === false ? '0' : '1',
    state.ignition ? '00000001' : '00000000',
    '00000000',
  ];
}

export function suntechPosition(id: string, fix: DeviceFix, state: DeviceState = {}): Buffer {
  // Mode, reason and report index.
  return Buffer.from(`STT;${[...fields(id, fix, state), '1', '1', '0001'].join(';')}\r`, 'latin1');
}

export function suntechAlarm(id: string, fix: DeviceFix, alarm: DeviceAlarm, state: DeviceState = {}): Buffer {
  // Alert id, modifier and data.
  return Buffer.from(`ALT;${[...fields(id, fix, state), String(ALERTS[alarm]), '0', ''].join(';')}\r`, 'latin1');
}

export const suntechHeartbeat = (id: string): Buffer => Buffer.from(`ALV;${id}\r`, 'latin1');

/** The answer to a command: "RES;<id>;<command code>;<result>". */
export const suntechCommandReply = (id: string, text: string): Buffer => Buffer.from(`RES;${id};${text}\r`, 'latin1');
