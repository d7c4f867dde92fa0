// The serial-port payload of a Suntech UEX report (legacy and universal forms).
import type { Telemetry } from '../../positions/telemetry.js';
import type { Fields } from './fields.js';

/**
 * The serial data of a UEX report: "<length>;<text>;<checksum>", the text possibly holding
 * several ';'-separated items. Known payloads: a GTSL driver-id reader, CabAVL fuel, "t_n=" / "N_n="
 * sensor pairs; anything else is kept as the raw `serial` text.
 */
export function serialData(f: Fields, attributes: Telemetry): void {
  let remaining = f.int();
  let fuel = 0;
  while (remaining > 0 && f.remaining > 0) {
    const item = f.text();
    if (item.startsWith('CabAVL')) {
      const data = item.split(',');
      [2, 3].forEach((i, n) => {
        const value = Number(data[i]);
        if (value > 0) {
          fuel += value;
          attributes.io![`fuel${n + 1}`] = value;
        }
      });
    } else if (item.startsWith('GTSL')) {
      const id = item.split('|')[4];
      if (id) attributes.driverUniqueId = id.slice(0, 256);
    } else if (item.includes('=')) {
      const [key = '', raw = ''] = item.split('=');
      const value = parseInt(raw.trim().split('.')[0]!, 16);
      if (Number.isFinite(value)) {
        if (key[0] === 't' && /^[1-9]$/.test(key[2] ?? '')) attributes[`temp${+key[2]!}`] = value;
        else if (key[0] === 'N') {
          fuel += value;
          attributes.io![`fuel${key[2] ?? ''}`] = value;
        } else if (key[0] === 'Q') attributes.io!.drivingQuality = value;
      }
    } else {
      attributes.io!.serial = item.trim();
    }
    remaining -= item.length + 1;
  }
  if (fuel > 0) attributes.fuel = fuel;
  f.skip(); // checksum
}

