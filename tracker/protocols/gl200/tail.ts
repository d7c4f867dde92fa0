// What follows the last location block of a report: the backup battery level and, on vehicle
// units, the device status word. Models place them differently:
//   GV/GMT: …,<mileage>,<hour meter>,<analog in>…,<battery %>,<device status (6 hex)>,…
//   GL5xx:  …,<cell>,<CSQ RSSI>,<CSQ BER>,<reserved>,<battery %>,<mode>,<motion>,…
//   others: …,<battery %>,<send time>,<count>
import type { Telemetry } from '../../positions/telemetry.js';

/** Device types (first two digits of the protocol version) of the GL5xx family. */
const GL5 = new Set(['11', '40', '44', '52', '55', 'DE']);
/** Fields between the end of the location block and the GL5xx battery: cell (4), RSSI, BER, reserved. */
const GL5_BATTERY = 7;
const STATUS = /^[0-9A-Fa-f]{6}$/;

const percent = (v: string | undefined) => (v && /^\d{1,3}$/.test(v) && Number(v) <= 100 ? Number(v) : undefined);

/** Sets the battery level and device status; returns the status word's index, or -1. */
export function tailAttributes(f: string[], end: number, attributes: Telemetry): number {
  const status = statusIndex(f, end);
  const battery = status > 0 ? percent(f[status - 1]) : GL5.has(f[1]!.slice(0, 2)) ? percent(f[end + GL5_BATTERY]) : percent(f[f.length - 3]);
  if (battery !== undefined) attributes.batteryLevel = battery;
  if (status > 0) deviceStatus(parseInt(f[status]!, 16), attributes);
  return status;
}

/** The first 6-hex-digit field after `end` (not among the last two) that follows a percentage, or -1. */
function statusIndex(f: string[], end: number): number {
  for (let i = end + 1; i < f.length - 2; i++) if (f[i]!.length === 6 && STATUS.test(f[i]!) && percent(f[i - 1]) !== undefined) return i;
  return -1;
}

/** Device status: ignition state, digital inputs, digital outputs, one byte each. */
function deviceStatus(value: number, attributes: Telemetry): void {
  const ignition = (value >> 16) & 0xff;
  if (ignition & 0x10) attributes.ignition = false;
  else if (ignition & 0x20) attributes.ignition = true;
  const input = (value >> 8) & 0xff;
  const output = value & 0xff;
  attributes.input = input;
  attributes.output = output;
  // Input 0 is the ignition line; inputs 1 and 2 are the wired digital inputs.
  attributes.in1 = (input & 0x02) !== 0;
  attributes.in2 = (input & 0x04) !== 0;
  attributes.out1 = (output & 0x01) !== 0;
  attributes.out2 = (output & 0x02) !== 0;
}
