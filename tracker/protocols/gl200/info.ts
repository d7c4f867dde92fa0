// GTINF, the device information report: no location, the unit's state.
//   +RESP:GTINF,<version>,<IMEI>,<name>,<state>,<ICCID>,<CSQ RSSI>,<CSQ BER>,<external power
//   supply>,<external power mV>,…,<backup battery V>,<charging>,…,<send time>,<count>
import type { Telemetry } from '../../positions/telemetry.js';

/** Motion state (hex): ignition and motion it implies. */
const STATES: Record<number, Pick<Telemetry, 'ignition' | 'motion'>> = {
  0x11: { ignition: false, motion: false },
  0x12: { ignition: false, motion: true },
  0x16: { ignition: false, motion: true },
  0x1a: { ignition: false, motion: true },
  0x21: { ignition: true, motion: false },
  0x22: { ignition: true, motion: true },
  0x41: { motion: false },
  0x42: { motion: true },
};

export function infoAttributes(f: string[]): Telemetry {
  const attributes: Telemetry = {};
  const state = f[4] && /^[0-9A-Fa-f]{2}$/.test(f[4]) ? STATES[parseInt(f[4], 16)] : undefined;
  Object.assign(attributes, state);
  if (f[5] && /^\d{19,20}F?$/.test(f[5])) attributes.iccid = f[5];
  if (f[6] && /^\d{1,2}$/.test(f[6])) attributes.rssi = Number(f[6]);
  if (f[9] && /^\d{1,6}$/.test(f[9])) attributes.power = Number(f[9]) / 1000;
  // A second supply input on GV600-series units, with no vocabulary key.
  if (f[10] && /^\d{1,6}$/.test(f[10])) attributes.io = { power2: Number(f[10]) / 1000 };
  const battery = f.slice(10, 12).find((v) => /^\d\.\d{1,2}$/.test(v));
  if (battery) attributes.battery = Number(battery);
  return attributes;
}
