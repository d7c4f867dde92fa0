// GT06 messages made of typed modules: the modular position 0x70 (2-byte type and length), the
// Jimi 4G device status 0xf1 and peripheral report 0xf2 (a time, then 2-byte ids).
import { addAlarm, type Telemetry } from '../../positions/telemetry.js';
import { MODULAR_EVENTS } from './alarms.js';
import { addNetwork, type Fix, type Found, ioText, type Message, report } from './blocks.js';

export function decodeModular(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  const io: Record<string, number | string | boolean> = {};
  let fix: Fix | null = null;
  let satellites: number | undefined;
  while (r.remaining > 0) {
    const type = r.u16();
    const length = r.u16();
    switch (type) {
      case 0x03:
        a.iccid = r.bytes(10).toString('hex');
        break;
      case 0x09:
        satellites = r.u8();
        break;
      case 0x11: {
        const cell = { mobileCountryCode: r.u16(), mobileNetworkCode: r.u16(), locationAreaCode: r.u16(), cellId: r.u24(), signalStrength: -r.u8() };
        if (cell.cellId > 0) addNetwork(a, [cell]);
        break;
      }
      case 0x18:
        a.battery = r.u16() / 100;
        break;
      case 0x28:
        a.hdop = r.u8() / 10;
        break;
      case 0x2a: {
        const input = r.u8();
        a.door = (input & 0x0f) > 0;
        io.tamper = input >> 4 > 0;
        break;
      }
      case 0x2e:
        a.odometer = r.bytes(4).readUInt32LE(0);
        break;
      case 0x33:
        fix = readModularGps(m, a);
        break;
      case 0x34: {
        const event = r.u8();
        const alarm = MODULAR_EVENTS[event];
        if (alarm) addAlarm(a, alarm);
        a.event = event;
        r.skip(4); // time
        r.skip(r.u8()); // content
        break;
      }
      case 0x7f:
        io.tag1Id = r.bytes(6).toString('hex');
        io.tag1Battery = r.u16() / 1000;
        io.tag1BatteryLevel = r.u8();
        io.tag1Temp = r.i16() / 10;
        io.tag1Humidity = r.i16();
        io.tag1Status = r.u8();
        break;
      default:
        // Kept raw by module id, as other protocols' unknown IO elements are (short ones only).
        if (length <= 256) io[`module${type.toString(16).padStart(4, '0')}`] = r.bytes(length).toString('hex');
        else r.skip(length);
    }
  }
  if (Object.keys(io).length > 0) a.io = io;
  if (fix && satellites !== undefined) fix.satellites = satellites;
  return report(fix, a);
}

/** Module 0x33: Unix time, satellites, altitude, coordinates, speed, course word. */
function readModularGps(m: Message, a: Telemetry): Fix | null {
  const { r } = m;
  const seconds = r.u32();
  const satellites = r.u8();
  const altitude = r.i16();
  let lat = r.u32() / 30000 / 60;
  let lng = r.u32() / 30000 / 60;
  const speed = r.u8();
  const flags = r.u16();
  // An all-zero block (time 0) is a module without a fix.
  if (seconds === 0 || lat > 90 || lng > 180) return null;
  if (!(flags & 0x0400)) lat = -lat;
  if (flags & 0x0800) lng = -lng;
  if (flags & 0x4000) a.ignition = (flags & 0x8000) !== 0;
  return { deviceTime: new Date(seconds * 1000), valid: (flags & 0x1000) !== 0, lat, lng, speed, heading: flags & 0x03ff, satellites, altitude };
}

/** 0xf1 device status and 0xf2 peripheral report. */
export function decodeDeviceStatus(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  const io: Record<string, number | string | boolean> = {};
  r.skip(4); // report time
  while (r.remaining > 0) {
    const id = r.u16();
    if (m.proto === 0xf2) readPeripheral(m, id, a, io);
    else readDeviceState(m, id, a, io);
  }
  if (Object.keys(io).length > 0) a.io = io;
  return report(null, a);
}

function readPeripheral(m: Message, id: number, a: Telemetry, io: Record<string, number | string | boolean>): void {
  const { r } = m;
  if (id === 0x000a) {
    // Bluetooth peripheral event: MAC, event, its data, and the data it carries.
    const length = r.u16();
    r.skip(1); // MAC address type
    io.mac = r.bytes(6).toString('hex');
    const event = r.u8();
    a.event = event;
    const eventData = r.u8();
    if (event > 0) io.eventData = eventData;
    io.dataType = r.u8();
    io.dataDetails = ioText(r.bytes(length - 10).toString('hex'));
  } else if (id === 0x000c) {
    r.skip(1); // length
    io.externalBatteryLevel = r.u8();
    if (r.u8() > 0) io.externalBatteryCharge = true;
    io.externalBatteryCycles = r.u16();
    r.skip(6);
  } else {
    const length = r.u8();
    r.skip(length === 0 ? r.u8() : length);
  }
}

function readDeviceState(m: Message, id: number, a: Telemetry, io: Record<string, number | string | boolean>): void {
  const { r } = m;
  const length = r.u8();
  switch (id) {
    case 0x0001: {
      const motion = r.u8();
      a.motion = motion === 0x02 || motion === 0x04;
      break;
    }
    case 0x0002:
      a.armed = r.u8() > 0;
      break;
    case 0x0004:
      a.ignition = r.u8() > 0;
      break;
    case 0x0005:
      a.power = r.u16() / 100;
      break;
    case 0x0007:
      a.charge = r.u8() > 0;
      break;
    case 0x000a:
      io.chargeVoltage = r.u16();
      break;
    case 0x000b:
      io.batteryTemp = r.u16() / 10;
      break;
    default:
      r.skip(length);
  }
}
