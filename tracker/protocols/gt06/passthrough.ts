// Data a GT06 unit relays from an attached device: the serial port (0x9b) and an OBD reader (0x8c).
import type { Telemetry } from '../../positions/telemetry.js';
import { type Found, type Message, readDate, report } from './blocks.js';

/** Serial data: a device type byte, then text (trimmed) or, when not printable, hex. */
export function decodeSerialData(m: Message): Found {
  const { r } = m;
  r.skip(1); // external device type
  const data = r.bytes(r.remaining);
  const printable = data.every((b) => (b >= 0x20 && b < 0x7f) || b === 0x09 || b === 0x0a || b === 0x0d);
  const text = printable ? data.toString('ascii').trim() : data.toString('hex');
  const a: Telemetry = { result: text.slice(0, 256) }; // the vocabulary's limit for text
  return report(null, a);
}

/** OBD reader: time, ACC, then "PID=hex,…" pairs (values in hundredths). */
export function decodeObd(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  readDate(r);
  a.ignition = r.u8() > 0;
  // 12 bytes follow the text; their layout is not documented.
  const text = r.bytes(Math.max(0, r.remaining - 12)).toString('ascii');
  for (const pair of text.split(',')) {
    const [key, value] = pair.split('=');
    if (!key || value === undefined) continue;
    const pid = parseInt(key.slice(0, 2), 16);
    if (pid === 0x4a && value !== '') a.vin = value;
    if (!/^[0-9A-Fa-f]{1,12}$/.test(value)) continue;
    const number = parseInt(value, 16) / 100;
    if (pid === 0x28) a.odometer = number;
    else if (pid === 0x2b) a.fuel = number;
    else if (pid === 0x2d) a.coolantTemp = number;
    else if (pid === 0x35) a.obdSpeed = number;
    else if (pid === 0x36) a.rpm = number;
    else if (pid === 0x47) a.fuelUsed = number;
  }
  return report(null, a);
}
