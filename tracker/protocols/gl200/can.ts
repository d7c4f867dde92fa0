// GTCAN, the vehicle's CAN bus data. A hex mask (the seventh field) says which values follow, in
// bit order except that engine speed (bit 5) comes before vehicle speed (bit 4). The values after
// fuel level are model-specific and stay unread.
//   +RESP:GTCAN,<version>,<IMEI>,<name>,<report type>,<bus state>,<mask>,<VIN>,<ignition>,
//   <total distance H…>,<fuel used L>,<rpm>,<speed km/h>,<coolant °C>,<consumption>,<fuel level>,…
import type { Telemetry } from '../../positions/telemetry.js';

const MASK_AT = 6;
/** Mask bits in the order their values follow. */
const ORDER = [0, 1, 2, 3, 5, 4, 6, 7, 8];

function finite(v: string): number | undefined {
  return /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : undefined;
}

export function canAttributes(f: string[]): Telemetry {
  const attributes: Telemetry = {};
  const maskField = f[MASK_AT] ?? '';
  if (!/^[0-9A-Fa-f]{1,8}$/.test(maskField)) return attributes;
  const mask = parseInt(maskField, 16);
  let at = MASK_AT + 1;
  for (const bit of ORDER) {
    if (!(mask & (1 << bit))) continue;
    const v = f[at++] ?? '';
    if (!v) continue;
    if (bit === 0 && /^[0-9A-Z]{17}$/.test(v)) attributes.vin = v;
    if (bit === 1 && finite(v) !== undefined) attributes.ignition = Number(v) > 0;
    if (bit === 3 && finite(v) !== undefined) attributes.fuelUsed = Number(v);
    if (bit === 5 && finite(v) !== undefined) attributes.rpm = Number(v);
    if (bit === 4 && finite(v) !== undefined) attributes.obdSpeed = Number(v);
    if (bit === 6 && finite(v) !== undefined) attributes.coolantTemp = Number(v);
    // Fuel level: "P" percent of the tank, "L" litres.
    const level = finite(v.slice(1));
    if (bit === 8 && level !== undefined && v[0] === 'P' && level <= 100) attributes.fuelLevel = level;
    if (bit === 8 && level !== undefined && v[0] === 'L') attributes.fuel = level;
  }
  return attributes;
}
