// GTERI's accessory data after the device status word and one reserved (UART type) field, announced
// by the report's ERI mask (fifth field): bit 0 a digital fuel sensor (hex), bit 1 1-wire
// temperature probes (count, then id, type, value in 1/16 °C as 16-bit hex each). GV350M units
// list their fuel sensors by UART instead: count, then type, UART id, value.
import type { Telemetry } from '../../positions/telemetry.js';

const FUEL_SENSOR = 0x01;
const ONE_WIRE = 0x02;
const CAN = 0x04;
/** Protocol version prefix of the GV350M. */
const GV350M = 'F1';
/** Probes read at most (the vocabulary's temp1… family). */
const MAX_PROBES = 8;

const hex = (v: string | undefined) => (v && /^[0-9A-Fa-f]{1,8}$/.test(v) ? parseInt(v, 16) : undefined);
const count = (v: string | undefined) => (v && /^\d{1,2}$/.test(v) ? Math.min(Number(v), MAX_PROBES) : 0);

export function eriAttributes(f: string[], status: number, attributes: Telemetry): void {
  const mask = hex(f[4]);
  if (mask === undefined) return;
  const gv350m = f[1]!.startsWith(GV350M);
  let at = status + 2;
  if (mask & FUEL_SENSOR && !gv350m) {
    const fuel = hex(f[at++]);
    if (fuel !== undefined) attributes.fuel = fuel;
  }
  if (mask & ONE_WIRE) {
    for (let i = 1, n = count(f[at++]); i <= n; i += 1) {
      const raw = hex(f[at + 2]);
      at += 3;
      // Two's complement 16-bit, 1/16 °C.
      if (raw !== undefined && raw <= 0xffff) attributes[`temp${i}`] = ((raw << 16) >> 16) * 0.0625;
    }
  }
  if (mask & CAN || !(mask & FUEL_SENSOR && gv350m)) return;
  for (let i = 0, n = count(f[at++]); i < n; i += 1) {
    const fuel = hex(f[at + 2]);
    at += 3;
    if (fuel !== undefined) attributes.fuel = fuel;
  }
}
