// Bluetooth sensor lists that FMB devices send as one variable-length IO element (548, 10828,
// 10829, 10831, 11317): a header byte, then per sensor a length and a run of parameters
// (id, length, value). Each sensor's values go under `io` by Traccar's names (tag1Rssi,
// tag1Voltage…) in Traccar's units; the element's raw bytes stay under its IO id as well.
import { Reader, Truncated } from '../reader.js';
import type { IoValue } from '../../positions/telemetry.js';

export const TAG_LIST_IDS = new Set([548, 10828, 10829, 10831, 11317]);

type Parameter = (value: Reader, length: number) => [string, IoValue][];

const PARAMETERS: Record<number, Parameter> = {
  0: (v) => [['Rssi', signed8(v)]],
  1: (v, n) => [['Id', v.bytes(n).toString('hex')]],
  2: (v) => {
    // Flags byte; bit 6 low battery, bit 7 a voltage byte follows (10 mV steps from 2 V).
    const flags = v.u8();
    const out: [string, IoValue][] = [];
    if (flags & 0x40) out.push(['LowBattery', true]);
    if (flags & 0x80) out.push(['Voltage', v.u8() * 10 + 2000]);
    return out;
  },
  5: (v, n) => [['Name', v.bytes(n).toString('utf8')]],
  6: (v) => [['Temp', v.i16()]],
  7: (v) => [['Humidity', v.u8()]],
  8: (v) => [['Magnet', v.u8() > 0]],
  9: (v) => [['Motion', v.u8() > 0]],
  10: (v) => [['MotionCount', v.u16()]],
  11: (v) => [['Pitch', signed8(v)]],
  12: (v) => [['AngleRoll', v.i16()]],
  13: (v) => [['LowBattery', v.u8()]],
  14: (v) => [['Battery', v.u16()]], // mV
  15: (v) => [['Mac', v.bytes(6).toString('hex')]],
};

function signed8(v: Reader): number {
  const b = v.u8();
  return b > 127 ? b - 256 : b;
}

/** The sensors' values, keyed tag<n><Name>. A list cut short keeps the sensors read before the cut. */
export function decodeTagList(raw: Buffer): Record<string, IoValue> {
  const out: Record<string, IoValue> = {};
  const r = new Reader(raw);
  try {
    r.skip(1); // header
    for (let i = 1; r.remaining > 0; i++) {
      const tag = new Reader(r.bytes(r.u8()));
      while (tag.remaining > 0) {
        const id = tag.u8();
        const length = tag.u8();
        const parameter = PARAMETERS[id];
        if (!parameter) {
          tag.skip(length);
          continue;
        }
        for (const [name, v] of parameter(new Reader(tag.bytes(length)), length)) out[`tag${i}${name}`] = v;
      }
    }
  } catch (err) {
    if (!(err instanceof Truncated)) throw err;
  }
  return out;
}
