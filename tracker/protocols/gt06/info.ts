// GT06 information messages without a fix: 0x94 (a sub-type byte, then voltage, ICCID, door,
// fuel sensor, RFID or humidity), the GK310 heartbeat 0x23 and the 0x13 status of units that add
// a temperature. They update the device's telemetry and raise alarms, never move it.
import type { Telemetry } from '../../positions/telemetry.js';
import { type Found, ioText, type Message, readDate, report } from './blocks.js';

/** The fuel sensor's line: "!AIOIL,addr,output,temperature,version,codes,measured,movement,…". */
const FUEL_SENSOR = /^!AIOIL,\d+,\d+\.\d+,(\d+\.\d+),[^,]+,\d{4},(\d+\.\d+),[01],\d+,[0-9A-Fa-f]{2}/;

export function decodeInfo(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  // In 78 78 framing the message is only the external voltage.
  if (!m.extended) {
    a.power = r.i16() / 100;
    return report(null, a);
  }
  switch (r.u8()) {
    case 0x00:
      a.adc1 = r.u16() / 100;
      break;
    case 0x04:
      a.io = statusPairs(r.bytes(r.remaining).toString('ascii'));
      break;
    case 0x05: {
      if (r.remaining >= 7) readDate(r); // report time
      const flags = r.u8();
      a.door = (flags & 0x01) !== 0;
      a.io = { io1: (flags & 0x04) !== 0 };
      break;
    }
    case 0x0a:
      r.skip(8 + 8); // IMEI, IMSI
      a.iccid = r.bytes(10).toString('hex').replace(/f+$/, '');
      break;
    case 0x0b:
      // One byte is the network technology, two the external voltage.
      if (m.declared === 7) a.io = { networkTechnology: r.u8() > 0 ? '4G' : '2G' };
      else if (m.declared === 8) a.power = r.u16() / 100;
      break;
    case 0x0d: {
      if (r.remaining > 0 && r.buf[r.pos] !== 0x21) r.skip(6); // report time before the "!"
      const fuel = FUEL_SENSOR.exec(r.bytes(r.remaining).toString('ascii'));
      if (fuel) {
        a.temp1 = Number(fuel[1]);
        a.fuel = Number(fuel[2]);
      }
      break;
    }
    case 0x1b: {
      // A serial reader either passes its text through or frames a 4-byte key.
      const first = r.remaining > 0 ? r.buf[r.pos]! : 0;
      if (/[A-Za-z]/.test(String.fromCharCode(first))) {
        a.io = { serial: ioText(r.bytes(r.remaining).toString('ascii').trim()) };
      } else {
        r.skip(2); // header, type
        a.driverUniqueId = r.bytes(4).toString('hex');
      }
      break;
    }
    case 0x1e:
      a.temp1 = r.i32() / 10;
      a.io = { humidity: r.i32() / 10 };
      break;
    default:
      break;
  }
  return report(null, a);
}

/** "ALM1=C5;ALM2=CC;STA1=C0;DYD=01;…": alarm, status and engine-cut registers (hex). */
function statusPairs(text: string): Record<string, number> {
  const names: Record<string, string> = { ALM1: 'alarm1Status', ALM2: 'alarm2Status', ALM3: 'alarm3Status', ALM4: 'alarm4Status', STA1: 'otherStatus', DYD: 'engineStatus' };
  const out: Record<string, number> = {};
  for (const pair of text.split(';')) {
    const [key, value] = pair.split('=');
    const name = key ? names[key] : undefined;
    if (name && value && /^[0-9A-Fa-f]+$/.test(value)) out[name] = parseInt(value, 16);
  }
  return out;
}

/** GK310 heartbeat: armed/ACC/charging bits, then battery voltage and GSM signal when present. */
export function decodeHeartbeat(m: Message): Found {
  const { r } = m;
  const status = r.u8();
  const a: Telemetry = { armed: (status & 0x01) !== 0, ignition: (status & 0x02) !== 0, charge: (status & 0x04) !== 0 };
  if (r.remaining >= 2) a.battery = r.u16() / 100;
  if (r.remaining >= 1) a.rssi = r.u8();
  return report(null, a);
}

/** The 16-byte 0x13 some units send: battery percentage and a temperature (bit 15 set: above 0). */
export function decodeStatusWithTemperature(m: Message): Found {
  const { r } = m;
  r.skip(1 + 2 + 1 + 1); // terminal info, satellites, alarm, language
  const a: Telemetry = { batteryLevel: r.u8() };
  r.skip(1 + 2 + 1 + 2 + 2); // working mode, voltage, reserved, working times, working time
  const value = r.u16();
  a.temp1 = ((value & 0x8000 ? 1 : -1) * (value & 0x7fff)) / 10;
  return report(null, a);
}
