// Mapping of FMB-family IO element ids to the telemetry vocabulary, in its units (volts, litres,
// metres); the raw values are kept in attributes.io as well, and ids with no general meaning
// (GNSS status, sleep mode, LLS raw levels…) only there.
import type { Alarm, BooleanKey, NumberKey, Telemetry } from '../../positions/telemetry.js';
import { addAlarm } from '../../positions/telemetry.js';

type Mapper = (value: number, attributes: Telemetry, raw: Buffer) => void;

const set =
  (name: NumberKey, scale = 1): Mapper =>
  (value, a) => {
    a[name] = scale === 1 ? value : Math.round(value * scale * 1000) / 1000;
  };
/** Temperatures are signed 32-bit values in 0.1 °C. */
const temperature =
  (name: `temp${number}`): Mapper =>
  (_value, a, raw) => {
    if (raw.length === 4) a[name] = raw.readInt32BE(0) / 10;
  };
const flag =
  (name: BooleanKey): Mapper =>
  (value, a) => {
    a[name] = value === 1;
  };
const alarmWhen =
  (alarm: Alarm): Mapper =>
  (value, a) => {
    if (value > 0) addAlarm(a, alarm);
  };

const FMB: Record<number, Mapper> = {
  1: flag('in1'),
  2: flag('in2'),
  9: set('adc1', 0.001), // analog input 1, mV
  16: set('odometer'), // total odometer, m
  21: set('rssi'),
  66: set('power', 0.001), // external voltage, mV
  67: set('battery', 0.001), // internal battery voltage, mV
  72: temperature('temp1'),
  73: temperature('temp2'),
  74: temperature('temp3'),
  75: temperature('temp4'),
  84: set('fuel', 0.1), // CAN fuel level, 0.1 L
  89: set('fuelLevel'), // CAN fuel level, %
  113: set('batteryLevel'),
  179: flag('out1'),
  180: flag('out2'),
  181: set('pdop', 0.1),
  182: set('hdop', 0.1),
  199: set('tripOdometer'),
  239: flag('ignition'),
  240: flag('motion'),
  246: alarmWhen('tow'),
  247: alarmWhen('accident'),
  249: alarmWhen('jamming'),
  252: alarmWhen('powerCut'), // unplug: external power disconnected
  255: alarmWhen('overspeed'),
};

/** Raw IO value: an integer when it fits exactly, otherwise the bytes as hex. */
export function ioValue(raw: Buffer): number | string {
  if (raw.length === 0 || raw.length > 8) return raw.toString('hex');
  if (raw.length <= 6) return raw.readUIntBE(0, raw.length);
  const big = raw.length === 8 ? raw.readBigUInt64BE(0) : BigInt('0x' + raw.toString('hex'));
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : raw.toString('hex');
}

/** Applies known IO elements to attributes; 78 (iButton) becomes the driver id. */
export function applyIo(id: number, raw: Buffer, attributes: Telemetry): void {
  if (id === 78) {
    if (raw.some((b) => b !== 0)) attributes.driverUniqueId = raw.toString('hex');
    return;
  }
  const mapper = FMB[id];
  const value = ioValue(raw);
  if (mapper && typeof value === 'number') mapper(value, attributes, raw);
}
