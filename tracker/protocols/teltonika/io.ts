// Mapping of FMB-family IO element ids to the telemetry vocabulary, in its units (volts, litres,
// metres); the raw values are kept in attributes.io as well, and ids with no general meaning
// (GNSS status, sleep mode, LLS raw levels…) only there.
import type { Alarm, BooleanKey, NumberKey, Telemetry } from '../../positions/telemetry.js';
import { addAlarm } from '../../positions/telemetry.js';
import { decodeTagList, TAG_LIST_IDS } from './tags.js';

type Mapper = (value: number, attributes: Telemetry, raw: Buffer) => void;

const set =
  (name: NumberKey, scale = 1): Mapper =>
  (value, a) => {
    a[name] = scale === 1 ? value : Math.round(value * scale * 1000) / 1000;
  };
/**
 * A percentage: set only when it is one (0..100). Other families give some of these ids wider
 * values of another meaning (a battery "level" of 29525), which stay under `io` alone.
 */
const percent =
  (name: NumberKey): Mapper =>
  (value, a) => {
    if (value <= 100) a[name] = value;
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
/** Values in the device's own scale that have no vocabulary key: under `io` by Traccar's name. */
const named =
  (name: string, scale = 1, signed = false): Mapper =>
  (value, a, raw) => {
    const v = signed && raw.length <= 6 ? raw.readIntBE(0, raw.length) : value;
    (a.io ??= {})[name] = Math.round(v * scale * 1000) / 1000;
  };
/** Green driving (253): the kind of harsh manoeuvre. */
const GREEN_DRIVING: Record<number, Alarm> = { 1: 'hardAcceleration', 2: 'hardBraking', 3: 'hardCornering' };

const FMB: Record<number, Mapper> = {
  1: flag('in1'),
  2: flag('in2'),
  3: flag('in3'),
  4: flag('in4'),
  9: set('adc1', 0.001), // analog input 1, mV
  10: set('adc2', 0.001),
  12: set('fuelUsed', 0.001), // OBD fuel used, mL
  16: set('odometer'), // total odometer, m
  21: set('rssi'),
  31: percent('engineLoad'),
  32: (_value, a, raw) => {
    if (raw.length === 1) a.coolantTemp = raw.readInt8(0);
  },
  36: set('rpm'),
  66: set('power', 0.001), // external voltage, mV
  67: set('battery', 0.001), // internal battery voltage, mV
  72: temperature('temp1'),
  73: temperature('temp2'),
  74: temperature('temp3'),
  75: temperature('temp4'),
  81: set('obdSpeed'), // CAN vehicle speed, km/h
  82: percent('throttle'), // CAN accelerator pedal
  83: set('fuelUsed', 0.1), // CAN fuel consumed, 0.1 L
  84: set('fuel', 0.1), // CAN fuel level, 0.1 L
  85: set('rpm'), // CAN engine speed
  89: percent('fuelLevel'), // CAN fuel level
  113: percent('batteryLevel'),
  179: flag('out1'),
  180: flag('out2'),
  181: set('pdop', 0.1),
  182: set('hdop', 0.1),
  199: set('tripOdometer'),
  236: alarmWhen('general'), // the "alarm" button / input scenario
  239: flag('ignition'),
  240: flag('motion'),
  246: alarmWhen('tow'),
  247: alarmWhen('accident'),
  249: alarmWhen('jamming'),
  251: alarmWhen('idle'),
  252: alarmWhen('powerCut'), // unplug: external power disconnected
  253: (value, a) => {
    const alarm = GREEN_DRIVING[value];
    if (alarm) addAlarm(a, alarm);
  },
  255: alarmWhen('overspeed'),
  662: flag('door'),
  // Teltonika EYE sensors 1-4: temperature in 0.01 °C, roll in degrees.
  10800: named('eyeTemp1', 0.01, true),
  10801: named('eyeTemp2', 0.01, true),
  10802: named('eyeTemp3', 0.01, true),
  10803: named('eyeTemp4', 0.01, true),
  10832: named('eyeRoll1', 1, true),
  10833: named('eyeRoll2', 1, true),
  10834: named('eyeRoll3', 1, true),
  10835: named('eyeRoll4', 1, true),
};

/** Raw IO value: an integer when it fits exactly, otherwise the bytes as hex. */
export function ioValue(raw: Buffer): number | string {
  if (raw.length === 0 || raw.length > 8) return raw.toString('hex');
  if (raw.length <= 6) return raw.readUIntBE(0, raw.length);
  const big = raw.length === 8 ? raw.readBigUInt64BE(0) : BigInt('0x' + raw.toString('hex'));
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : raw.toString('hex');
}

/** Elements whose bytes are not one number: ids and texts. */
function applyBytes(id: number, raw: Buffer, a: Telemetry): boolean {
  if (id === 78) {
    if (raw.some((b) => b !== 0)) a.driverUniqueId = raw.toString('hex'); // iButton
  } else if (id === 11) {
    if (raw.length === 8) a.iccid = raw.readBigUInt64BE(0).toString(); // ICCID part 1, as Traccar shows it
  } else if (id === 256 || id === 325) {
    a.vin = raw.toString('latin1');
  } else if (TAG_LIST_IDS.has(id)) {
    Object.assign((a.io ??= {}), decodeTagList(raw));
  } else {
    return false;
  }
  return true;
}

/** Applies a known IO element to the attributes (its raw value is kept under `io` by the caller). */
export function applyIo(id: number, raw: Buffer, attributes: Telemetry): void {
  if (applyBytes(id, raw, attributes)) return;
  const mapper = FMB[id];
  const value = ioValue(raw);
  if (mapper && typeof value === 'number') mapper(value, attributes, raw);
}
