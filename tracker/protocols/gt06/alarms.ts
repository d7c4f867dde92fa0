// GT06 alarm codes. The alarm byte of the status block differs between manufacturers; the values
// here are what most firmwares mean (GT06 manual, Concox/Jimi documents, Traccar's reading of
// them). Codes whose meaning depends on a device model that cannot be configured keep their
// common meaning (0x19 is lowBattery, not the LW series' hard acceleration).
import type { Alarm } from '../../positions/telemetry.js';
import type { Variant } from './variant.js';

/** Alarm byte of the status block (with the language byte's high nibble above it on 0x27/0xa4/0x39). */
const ALARM_BYTE: Record<number, Alarm> = {
  0x01: 'sos',
  0x02: 'powerCut',
  0x03: 'vibration',
  0x04: 'geofenceEnter',
  0x05: 'geofenceExit',
  0x06: 'overspeed',
  0x09: 'vibration',
  0x0c: 'tampering',
  0x0e: 'lowBattery',
  0x0f: 'lowBattery',
  0x11: 'powerOff',
  0x13: 'tampering',
  0x14: 'door',
  0x18: 'removing',
  0x19: 'lowBattery',
  0x1a: 'hardBraking',
  0x1b: 'hardCornering',
  0x23: 'fallDown',
  0x25: 'tampering',
  0x26: 'hardAcceleration',
  0x27: 'hardBraking',
  0x28: 'hardBraking',
  0x29: 'hardAcceleration',
  0x2a: 'hardCornering',
  0x2b: 'hardCornering',
  0x2c: 'accident',
  0x2e: 'hardCornering',
  0x30: 'jamming',
  0x32: 'tampering',
  0x33: 'lock',
  0x34: 'unlock',
  0x53: 'fuelLeak',
  0x5b: 'temperature',
  0x5c: 'temperature',
  0xc9: 'idle',
  0xf0: 'hardAcceleration',
  0xf1: 'hardBraking',
  0xf2: 'accident',
  0x107: 'jamming',
  0x10b: 'jamming',
};

/** The TRX16i numbers its geofence and low-power alarms differently. */
const TRX16I_ALARM_BYTE: Record<number, Alarm> = { 0x09: 'geofence', 0x0e: 'lowPower' };

export function alarmOfByte(code: number, variant: Variant): Alarm | undefined {
  return (variant === 'trx16i' ? TRX16I_ALARM_BYTE[code] : undefined) ?? ALARM_BYTE[code];
}

/** Bits 3..5 of the terminal-information byte. */
export function alarmOfTerminalInfo(info: number, variant: Variant): Alarm | undefined {
  switch ((info >> 3) & 0x07) {
    case 1:
      return 'vibration';
    case 2:
      return 'powerCut';
    case 3:
      return 'lowBattery';
    case 4:
      return 'sos';
    case 6:
      return 'geofence';
    case 7:
      return variant === 'vxt01' ? 'overspeed' : 'removing';
    default:
      return undefined;
  }
}

/** Event codes of the dash-camera alarm message 0x95 (0x01 is SOS only with a GPS block). */
export const CAMERA_EVENTS: Record<number, Alarm> = {
  0x0e: 'lowPower',
  0x76: 'temperature',
  0x80: 'vibration',
  0x87: 'overspeed',
  0x88: 'powerCut',
  0x90: 'hardAcceleration',
  0x91: 'hardBraking',
  0x92: 'hardCornering',
  0x93: 'accident',
};

/** Event codes of the modular message 0x70 (module 0x34). */
export const MODULAR_EVENTS: Record<number, Alarm> = {
  0x10: 'door',
  0x12: 'removing',
  0x14: 'geofenceEnter',
  0x15: 'geofenceExit',
  0x16: 'temperature',
  0x1a: 'lowBattery',
  0x1b: 'overspeed',
  0x1c: 'powerOn',
  0x1d: 'powerOff',
  0x20: 'vibration',
  0x21: 'powerCut',
  0x23: 'tampering',
};
