// Ruptela IO parameters (FM-Eco4/Pro4/Trace5 and the HCV/LCV families) to the telemetry
// vocabulary. Every parameter also stays under io by its id, so nothing a rule or an export may
// want is lost; the ones below additionally get their vocabulary key in our units.
import { addAlarm, type Alarm, type Telemetry } from '../../positions/telemetry.js';

type Mapper = (t: Telemetry, value: number) => void;

const set =
  <K extends 'power' | 'battery' | 'engineLoad' | 'odometer' | 'tripOdometer' | 'rpm' | 'obdSpeed' | 'fuel' | 'fuelLevel' | 'fuelUsed'>(key: K, factor = 1): Mapper =>
  (t, v) => {
    t[key] = v * factor;
  };
const flag =
  (key: 'motion' | 'charge' | 'ignition'): Mapper =>
  (t, v) => {
    t[key] = v > 0;
  };
const alarmWhen =
  (alarm: Alarm, raised: (v: number) => boolean): Mapper =>
  (t, v) => {
    if (raised(v)) addAlarm(t, alarm);
  };
const input =
  (n: number): Mapper =>
  (t, v) => {
    t[`in${n}`] = v > 0;
  };
/** Analog inputs are reported in mV. */
const adc =
  (n: number): Mapper =>
  (t, v) => {
    t[`adc${n}`] = v / 1000;
  };
/** Temperature sensors report signed tenths of a degree. */
const temp =
  (n: number): Mapper =>
  (t, v) => {
    t[`temp${n}`] = v / 10;
  };

const MAPPERS: Record<number, Mapper> = {
  2: input(1),
  3: input(2),
  4: input(3),
  5: input(4),
  13: flag('motion'),
  173: flag('motion'),
  20: adc(3),
  21: adc(4),
  22: adc(1),
  23: adc(2),
  29: set('power', 0.001),
  30: set('battery', 0.001),
  39: set('engineLoad'),
  65: set('odometer'),
  74: temp(4),
  78: temp(1),
  79: temp(2),
  80: temp(3),
  88: alarmWhen('jamming', (v) => v > 0),
  94: set('rpm', 0.25),
  95: set('obdSpeed'),
  // CAN fuel level, 0..255 of the tank.
  98: set('fuelLevel', 100 / 255),
  134: alarmWhen('hardBraking', (v) => v > 0),
  136: alarmWhen('hardAcceleration', (v) => v > 0),
  // Odometers counted in 5 m steps.
  163: set('odometer', 5),
  164: set('tripOdometer', 5),
  165: set('obdSpeed', 1 / 256),
  166: set('rpm', 0.125),
  197: set('rpm', 0.125),
  170: flag('charge'),
  205: set('fuel'),
  207: set('fuelLevel', 0.4),
  208: set('fuelUsed', 0.5),
  251: flag('ignition'),
  409: flag('ignition'),
  410: alarmWhen('tow', (v) => v > 0),
  411: alarmWhen('accident', (v) => v > 0),
  // 0 means the GNSS antenna is disconnected.
  415: alarmWhen('gpsAntennaCut', (v) => v === 0),
  758: alarmWhen('tampering', (v) => v === 1),
};

/** Parameters read as signed: temperatures. */
export const SIGNED_IDS: ReadonlySet<number> = new Set([32, 74, 78, 79, 80]);

/** Sets the vocabulary key of IO parameter `id`, if it has one. */
export function mapIo(t: Telemetry, id: number, value: number): void {
  MAPPERS[id]?.(t, value);
}

/** Parameter pairs that together hold one 16-character ASCII id: CAN driver, tachograph driver. */
const DRIVER_PAIRS: [number, number][] = [
  [126, 127],
  [155, 156],
];

/** Parameters a driver id is read from: the key (34) and both halves of each pair. */
export const DRIVER_ID_PARTS: ReadonlySet<number> = new Set([34, ...DRIVER_PAIRS.flat()]);

/**
 * The driver id of a record: the iButton/RFID key (parameter 34, as hex) or a CAN/tachograph
 * driver card split over two 8-byte parameters.
 */
export function driverId(raw: Map<number, Buffer>): string | undefined {
  const key = raw.get(34);
  if (key) return key.toString('hex');
  for (const [a, b] of DRIVER_PAIRS) {
    const first = raw.get(a);
    const second = raw.get(b);
    if (first?.length === 8 && second?.length === 8) return Buffer.concat([first, second]).toString('latin1').replace(/[^\x20-\x7e]/g, '');
  }
  return undefined;
}
