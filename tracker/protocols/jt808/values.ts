// Value formats several JT/T 808 messages share.
import type { Telemetry } from '../../positions/telemetry.js';
import { type Reader, utcDate } from '../reader.js';

/** Manufacturer values kept under `io` by Traccar's names. */
export type Io = Record<string, number | string | boolean>;

/** Text without the control characters and spaces padding it (as Java's trim()). */
export function trimText(text: string): string {
  return text.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '');
}

/** The units' clock runs on Beijing time: BCD yy MM dd HH mm ss at UTC+8 (as Traccar reads it by default). */
const UTC_OFFSET_MS = 8 * 3600_000;

export function readBcdTime(r: Reader): Date | null {
  const at = r.skip(6);
  const b = r.buf;
  const local = utcDate(2000 + bcd(b[at]!), bcd(b[at + 1]!), bcd(b[at + 2]!), bcd(b[at + 3]!), bcd(b[at + 4]!), bcd(b[at + 5]!));
  if (!local) return null;
  local.setTime(local.getTime() - UTC_OFFSET_MS);
  return local;
}

/** Two BCD digits in a byte. */
export function bcd(byte: number): number {
  return (byte >> 4) * 10 + (byte & 0x0f);
}

/**
 * "$OBD-RT,power,rpm,speed,throttle,load,coolant,instant fuel,average fuel,trip km,total km,trip
 * fuel,fuel used": the OBD reader's live line (an item of 0x0200 and transparent type 0x41).
 */
export function decodeObdRt(line: string, a: Telemetry, io: Io): void {
  const values = line.split(',').map((v) => (v.trim() === '' ? undefined : Number(v)));
  const at = (i: number) => {
    const v = values[i];
    return v !== undefined && Number.isFinite(v) ? v : undefined;
  };
  const set = <T>(i: number, apply: (v: number) => T) => {
    const v = at(i);
    if (v !== undefined) apply(v);
  };
  set(1, (v) => (a.power = v));
  set(2, (v) => (a.rpm = v));
  set(3, (v) => (a.obdSpeed = v));
  set(4, (v) => (a.throttle = v));
  set(5, (v) => (a.engineLoad = v));
  set(6, (v) => (a.coolantTemp = v));
  set(7, (v) => (io.fuelConsumption = v));
  set(8, (v) => (io.fuelConsumption = v));
  set(9, (v) => (io.tripOdometer = v));
  set(10, (v) => (io.obdOdometer = v));
  set(11, (v) => (io.tripFuelUsed = v));
  set(12, (v) => (a.fuelUsed = v));
}
