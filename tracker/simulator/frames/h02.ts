// H02 frames the way HQ-protocol trackers send them: text V1 reports, HTBT and LINK heartbeats, NBR
// cell reports, V4 command confirmations and the 32-byte binary '$' report. The status word is
// active-low.
import type { DeviceAlarm, DeviceFix, DeviceState } from './fix.js';
import { KMH_PER_KNOT } from './fix.js';

/** Status bit cleared for each alarm (bits 1 SOS, 2 overspeed, 19 power cut, 0 vibration). */
const ALARM_BITS: Partial<Record<DeviceAlarm, number>> = { vibration: 0, sos: 1, overspeed: 2, powerCut: 19 };

/** Active-low status word: all ones means "nothing to report"; bit 10 set = ignition on. */
export function h02Status(state: DeviceState = {}): number {
  let status = 0xffffffff;
  if (!state.ignition) status &= ~(1 << 10);
  const bit = state.alarm ? ALARM_BITS[state.alarm] : undefined;
  if (bit !== undefined) status &= ~(1 << bit);
  return status >>> 0;
}

/** The status word as the text messages carry it: 8 upper-case hex digits. */
const statusHex = (state: DeviceState) => h02Status(state).toString(16).toUpperCase().padStart(8, '0');

const two = (n: number) => String(n).padStart(2, '0');

function hhmmss(t: Date): string {
  return two(t.getUTCHours()) + two(t.getUTCMinutes()) + two(t.getUTCSeconds());
}

function ddmmyy(t: Date): string {
  return two(t.getUTCDate()) + two(t.getUTCMonth() + 1) + two(t.getUTCFullYear() % 100);
}

/** Degrees to DDMM.MMMM (DDDMM.MMMM for longitude). */
export function degMin(value: number, degreeDigits: number): string {
  const abs = Math.abs(value);
  let degrees = Math.floor(abs);
  let minutes = Number(((abs - degrees) * 60).toFixed(4));
  if (minutes >= 60) {
    degrees += 1;
    minutes = 0;
  }
  return String(degrees).padStart(degreeDigits, '0') + minutes.toFixed(4).padStart(7, '0');
}

/** The shared block: HHMMSS,A|V,lat,N|S,lng,E|W,knots,course,DDMMYY,status. */
function positionFields(fix: DeviceFix, state: DeviceState): string {
  return [
    hhmmss(fix.time),
    fix.valid === false ? 'V' : 'A',
    degMin(fix.lat, 2),
    fix.lat >= 0 ? 'N' : 'S',
    degMin(fix.lng, 3),
    fix.lng >= 0 ? 'E' : 'W',
    (fix.speed / KMH_PER_KNOT).toFixed(2),
    String(Math.round(fix.heading) % 360),
    ddmmyy(fix.time),
    statusHex(state),
  ].join(',');
}

export function h02Position(id: string, fix: DeviceFix, state: DeviceState = {}): Buffer {
  return Buffer.from(`*HQ,${id},V1,${positionFields(fix, state)}#`, 'latin1');
}

/** Alarms travel in a regular report with the alarm's status bit cleared. */
export function h02Alarm(id: string, fix: DeviceFix, alarm: DeviceAlarm, state: DeviceState = {}): Buffer {
  return h02Position(id, fix, { ...state, alarm });
}

/** LINK heartbeat: time, GSM signal, satellites, battery, steps, turnovers, date, status word (an SOS pressed without a fix). */
export function h02Link(id: string, time: Date, state: DeviceState = {}): Buffer {
  const battery = Math.round(state.batteryLevel ?? 100);
  return Buffer.from(`*HQ,${id},LINK,${hhmmss(time)},20,0,${battery},0,0,${ddmmyy(time)},${statusHex(state)}#`, 'latin1');
}

/** A cell the unit sees: location area code, cell id, and the signal as the unit reports it. */
export interface H02Cell {
  lac: number;
  cid: number;
  signal: number;
}

/**
 * NBR cell report, sent when the unit has no fix: time, MCC, MNC, GSM delay, cell count,
 * (LAC, cell id, signal) per cell, date, status word (an alarm still arrives).
 */
export function h02CellReport(id: string, time: Date, operator: { mcc: number; mnc: number }, cells: H02Cell[], state: DeviceState = {}): Buffer {
  const cellFields = cells.flatMap((c) => [c.lac, c.cid, c.signal]).join(',');
  return Buffer.from(`*HQ,${id},NBR,${hhmmss(time)},${operator.mcc},${operator.mnc},0,${cells.length},${cellFields},${ddmmyy(time)},${statusHex(state)}#`, 'latin1');
}

export function h02Heartbeat(id: string, batteryLevel = 100): Buffer {
  return Buffer.from(`*HQ,${id},HTBT,${Math.round(batteryLevel)}#`, 'latin1');
}

/** V4 confirmation of a command ("S20", "D1"…) followed by the current position. */
export function h02CommandReply(id: string, command: string, params: string[], fix: DeviceFix, state: DeviceState = {}): Buffer {
  return Buffer.from(`*HQ,${id},V4,${[command, ...params].join(',')},${positionFields(fix, state)}#`, 'latin1');
}

/** BCD-encodes a digit string (even length). */
function bcd(digits: string): Buffer {
  return Buffer.from(digits, 'hex');
}

/** 32-byte binary report: '$', id, time, date, lat, battery, lng+flags, speed/course, status, tail. */
export function h02Binary(id: string, fix: DeviceFix, state: DeviceState = {}): Buffer {
  const latDigits = degMin(fix.lat, 2).replace('.', '');
  const lngDigits = degMin(fix.lng, 3).replace('.', '');
  // Flags nibble: bit 1 valid, bit 2 north, bit 3 east.
  const flags = (fix.valid === false ? 0 : 0x02) | (fix.lat >= 0 ? 0x04 : 0) | (fix.lng >= 0 ? 0x08 : 0);
  const knots = String(Math.min(999, Math.round(fix.speed / KMH_PER_KNOT))).padStart(3, '0');
  const course = String(Math.round(fix.heading) % 360).padStart(3, '0');
  const status = Buffer.alloc(4);
  status.writeUInt32BE(h02Status(state));
  const battery = Math.min(100, Math.max(1, Math.round(state.batteryLevel ?? 100)));
  const head = Buffer.concat([
    Buffer.from('$', 'latin1'),
    bcd(id.padStart(10, '0').slice(-10)),
    bcd(hhmmss(fix.time) + ddmmyy(fix.time)),
    bcd(latDigits),
    Buffer.from([battery]),
    bcd(lngDigits + flags.toString(16)),
    bcd(knots + course),
    status,
  ]);
  // The rest (odometer, cell data) is padded with zeros here.
  return Buffer.concat([head, Buffer.alloc(32 - head.length)]);
}
