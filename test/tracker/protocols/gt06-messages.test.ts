// GT06 message types beyond the basic position/status/alarm set, one test each, with frames built
// from the layouts in the Concox/Jimi protocol documents (the declared length selects the model
// layout where a message number has several). Values are asserted as a user sees them: volts,
// km/h, metres, seconds, dBm, alarm names.
import { describe, expect, it } from '@jest/globals';
import { buildAck } from '../../../tracker/protocols/gt06/ack.js';
import { gt06 } from '../../../tracker/protocols/gt06/index.js';
import type { DecodeResult } from '../../../tracker/protocols/types.js';
import { gt06Frame, gt06GpsBlock } from '../../../tracker/simulator/frames/gt06.js';
import { protocolState } from './helpers.js';

type Part = number | number[] | Buffer | string;
const b = (...parts: Part[]) =>
  Buffer.concat(parts.map((p) => (Buffer.isBuffer(p) ? p : typeof p === 'string' ? Buffer.from(p, 'ascii') : Buffer.from(typeof p === 'number' ? [p] : p))));
const u16 = (v: number) => [(v >> 8) & 0xff, v & 0xff];
const u24 = (v: number) => [(v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff];
const u32 = (v: number) => [(v >>> 24) & 0xff, (v >> 16) & 0xff, (v >> 8) & 0xff, v & 0xff];
const hexOf = (text: string) => Buffer.from(text, 'hex');

const time = new Date('2024-03-05T06:07:08Z');
const fix = { time, lat: 48.8566, lng: 2.3522, speed: 42, heading: 90, satellites: 9 };
const GPS = gt06GpsBlock(fix);
const dateBytes = (t: Date) => [t.getUTCFullYear() - 2000, t.getUTCMonth() + 1, t.getUTCDate(), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds()];
const bcd = (t: Date) => dateBytes(t).map((n) => ((Math.floor(n / 10) << 4) | n % 10));
/** MCC 460, MNC 0, LAC 10365, cell 8120: the standard 8-byte cell block. */
const CELL = b(u16(460), 0, u16(10365), u24(8120));
const cell = { mobileCountryCode: 460, mobileNetworkCode: 0, locationAreaCode: 10365, cellId: 8120 };
const IMEI_BCD = hexOf('0123456789012345');

const decode = (frame: Buffer) => gt06.decode(frame, protocolState('123456789012345'));
const frame = (proto: number, ...parts: Part[]) => gt06Frame(proto, b(...parts), 7);
const extendedFrame = (proto: number, ...parts: Part[]) => gt06Frame(proto, b(...parts), 7, true);
/** The attributes of the first position, or of the attributes-only result. */
const attributesOf = (r: DecodeResult) => r.positions[0]?.attributes ?? r.attributes;

describe('GT06 status blocks', () => {
  it('0x16: the terminal-information alarm bits and the alarm byte both count (geofence, tampering)', () => {
    const r = decode(frame(0x16, GPS, 9, CELL, [6 << 3, 4, 3, 0x0c, 0x02]));
    expect(r.positions[0]!.attributes).toMatchObject({ alarm: 'geofence,tampering', batteryLevel: 66, rssi: 3, network: { cellTowers: [cell] } });
  });

  it('0x16: the ACC state of the course word, sampled with the fix, wins over the terminal-information bit', () => {
    const status = [0x02, 4, 3, 0x00, 0x02]; // terminal info: ACC on
    expect(decode(frame(0x16, gt06GpsBlock(fix, false), 9, CELL, status)).positions[0]!.attributes.ignition).toBe(false);
    // Without ACC in the course word (bit 14 clear) the terminal information says.
    expect(decode(frame(0x16, GPS, 9, CELL, status)).positions[0]!.attributes.ignition).toBe(true);
  });

  it('0x27: the language byte extends the alarm code (0x107 is jamming) and a geofence number follows', () => {
    const r = decode(frame(0x27, GPS, 9, CELL, [0x00, 100, 4, 0x07, 0x12], 3));
    expect(r.positions[0]!.attributes).toMatchObject({ alarm: 'jamming', batteryLevel: 100, io: { geofence: 3 } });
  });

  it('0x16 SeeWorld (length 0x26): 4-byte cell id, then the status with its SOS', () => {
    const r = decode(frame(0x16, GPS, 9, u16(310), 4, u16(0x81fe), u32(0x066d9b03), [0x41, 62, 0x42, 0x01, 0x02]));
    expect(r.positions[0]!.attributes).toMatchObject({ alarm: 'sos', ignition: false, batteryLevel: 62, network: { cellTowers: [{ mobileCountryCode: 310, cellId: 0x066d9b03 }] } });
  });

  it('0x16 TRX16i (length 0x2d): the alarm byte is also the event code, an RFID tag follows', () => {
    const r = decode(frame(0x16, GPS, 8, CELL, [0x46, 6, 4, 0xea, 0x01], hexOf('c3000001453f9201')));
    expect(r.positions[0]!.attributes).toMatchObject({ event: 234, driverUniqueId: 'c3000001453f9201', ignition: true });
  });

  it('0x13 OBD6 (length 0x13): signal, battery percent, voltage and temperature without a fix', () => {
    const r = decode(frame(0x13, 0x02, u16(20), 0x01, 0x02, 80, 4, u16(1250), 0, u16(0), u16(0xffd3)));
    expect(r.positions).toHaveLength(0);
    expect(r.heartbeat).toBe(true);
    expect(r.attributes).toMatchObject({ ignition: true, rssi: 20, alarm: 'sos', batteryLevel: 80, power: 12.5, temp1: -4.5 });
  });

  it('0x13 with 16 bytes: battery percent and a temperature (bit 15 set: above zero)', () => {
    const r = decode(frame(0x13, 0x30, u16(0), 0, 0, 77, 0, u16(0), 0, u16(0), u16(0), u16(0x8000 | 215)));
    expect(r.attributes).toEqual({ batteryLevel: 77, temp1: 21.5 });
  });
});

describe('GT06 information 0x94', () => {
  it('in 78 78 framing: the external voltage', () => {
    expect(decode(frame(0x94, u16(1259))).attributes).toEqual({ power: 12.59 });
  });

  it.each<[string, Buffer, object]>([
    ['0x00 analog input', b(0x00, u16(448)), { adc1: 4.48 }],
    ['0x0b voltage', b(0x0b, u16(739)), { power: 7.39 }],
    ['0x0b network technology', b(0x0b, 0x01), { io: { networkTechnology: '4G' } }],
    ['0x05 door', b(0x05, dateBytes(time), 0x05), { door: true, io: { io1: true } }],
    ['0x0a ICCID', b(0x0a, IMEI_BCD, IMEI_BCD, hexOf('8966051912408052452f')), { iccid: '8966051912408052452' }],
    ['0x0d fuel sensor', b(0x0d, '!AIOIL,02,008.290,029.600,519J,0400,008.430,0,00,AB'), { temp1: 29.6, fuel: 8.43 }],
    ['0x1b serial text', b(0x1b, 'RFID:008FB2BEBA39\r\n'), { io: { serial: 'RFID:008FB2BEBA39' } }],
    ['0x1b driver key', b(0x1b, 0x02, 0x08, hexOf('4277efef'), 0x35, 0x03), { driverUniqueId: '4277efef' }],
    ['0x1e temperature and humidity', b(0x1e, u32(213), u32(750)), { temp1: 21.3, io: { humidity: 75 } }],
    ['0x04 status registers', b(0x04, 'ALM1=C5;STA1=C0;DYD=01;SOS=,,;'), { io: { alarm1Status: 0xc5, otherStatus: 0xc0, engineStatus: 1 } }],
  ])('in 79 79 framing, sub-type %s', (_name, body, expected) => {
    const r = decode(extendedFrame(0x94, body));
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toEqual(expected);
    expect(r.reply).toEqual(buildAck(0x94, 7));
  });
});

describe('GT06 dash-camera alarm 0x95', () => {
  it('short form (time and event only): an alarm without a fix', () => {
    const r = decode(frame(0x95, dateBytes(time), 0x91));
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toEqual({ event: 0x91, alarm: 'hardBraking' });
  });

  it('with a GPS block: a position with the SOS and the names of the recorded videos', () => {
    const files = 'EVENT_1_I_56.mp4,EVENT_1_F_55.mp4';
    const r = decode(frame(0x95, dateBytes(time), GPS.subarray(7, 15), GPS.subarray(16, 18), 0x01, u16(0), files));
    const p = r.positions[0]!;
    expect(p.lat).toBeCloseTo(48.8566, 5);
    expect(p.deviceTime).toEqual(time);
    expect(p.attributes).toMatchObject({ alarm: 'sos', event: 1, io: { eventFiles: files } });
  });

  it('JC400: marker, full GPS block with a 2-byte speed after the course word, supply voltage', () => {
    const r = decode(frame(0x95, u16(0xffff), 0x01, dateBytes(time), GPS.subarray(6, 15), GPS.subarray(16, 18), u16(120), u16(138), 0x93, u16(0)));
    const p = r.positions[0]!;
    expect(p.speed).toBe(120);
    expect(p.satellites).toBe(9);
    expect(p.attributes).toMatchObject({ power: 13.8, alarm: 'accident' });
  });
});

describe('GT06 pass-through and modular messages', () => {
  it('0x9b serial data: printable text trimmed, anything else as hex', () => {
    expect(decode(extendedFrame(0x9b, 0x03, 'D7520A62\r\n')).attributes).toEqual({ result: 'D7520A62' });
    expect(decode(extendedFrame(0x9b, 0x03, [0x80, 0xd6, 0x00])).attributes).toEqual({ result: '80d600' });
  });

  it('0x8c OBD: engine speed, coolant temperature, VIN and ACC', () => {
    const text = '363=00033450,2D3=00002260,4A3=WVWZZZ1JZXW000001';
    const r = decode(extendedFrame(0x8c, dateBytes(time), 0x01, text, Buffer.alloc(12)));
    expect(r.attributes).toEqual({ ignition: true, rpm: 2100, coolantTemp: 88, vin: 'WVWZZZ1JZXW000001' });
  });

  it('0x70 modular: a fix with altitude, the removal alarm, the door and a sensor tag', () => {
    const gps = b(u32(time.getTime() / 1000), 7, u16(35), GPS.subarray(7, 15), 42, GPS.subarray(16, 18));
    const tag = b(hexOf('c4a82841074a'), u16(3000), 100, u16(290), u16(55), 7);
    const r = decode(
      extendedFrame(0x70, u16(0x33), u16(gps.length), gps, u16(0x34), u16(6), 0x12, [0, 0, 0, 0], 0, u16(0x2a), u16(1), 0x01, u16(0x7f), u16(tag.length), tag, u16(0x01), u16(2), [0xab, 0xcd]),
    );
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: time, altitude: 35, satellites: 7, speed: 42, valid: true });
    expect(p.lat).toBeCloseTo(48.8566, 5);
    expect(p.attributes).toEqual({ alarm: 'removing', event: 0x12, door: true, io: { tamper: false, tag1Id: 'c4a82841074a', tag1Battery: 3, tag1BatteryLevel: 100, tag1Temp: 29, tag1Humidity: 55, tag1Status: 7, module0001: 'abcd' } });
  });

  it('0xf1 device status: voltage, ACC and motion without a fix', () => {
    const r = decode(extendedFrame(0xf1, u32(time.getTime() / 1000), u16(0x05), 2, u16(405), u16(0x04), 1, 1, u16(0x01), 1, 0x02));
    expect(r.attributes).toEqual({ power: 4.05, ignition: true, motion: true });
  });

  it('0xf2 peripheral report: the external battery pack', () => {
    const r = decode(extendedFrame(0xf2, u32(time.getTime() / 1000), u16(0x0c), 11, 80, 1, u16(12), Buffer.alloc(6)));
    expect(r.attributes).toEqual({ io: { externalBatteryLevel: 80, externalBatteryCharge: true, externalBatteryCycles: 12 } });
  });

  it('0x23 GK310 heartbeat: armed, ACC, battery voltage and signal', () => {
    expect(decode(frame(0x23, 0x03, u16(290), 4)).attributes).toEqual({ armed: true, ignition: true, charge: false, battery: 2.9, rssi: 4 });
  });

  it('0x15 answer with the ICCID: the SIM id is telemetry, the text the command reply', () => {
    const text = '<ICCID:89882390000097302650>';
    const r = decode(frame(0x15, 4 + text.length, u32(0), text, u16(2)));
    expect(r.attributes).toEqual({ iccid: '89882390000097302650' });
    expect(r.commandReply).toBe(text);
  });
});

describe('GT06 LBS and Wi-Fi reports: invalid positions with the network data', () => {
  const emptyCells = (n: number) => Buffer.alloc(n);

  it('0x28: seven cell slots (unused ones zero), stored at 0, 0 with valid false', () => {
    const r = decode(frame(0x28, dateBytes(time), u16(460), 0, u16(10365), u24(8120), 60, u16(10365), u24(8121), 75, emptyCells(5 * 6), 0));
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: time, valid: false, lat: 0, lng: 0 });
    expect(p.attributes.network).toEqual({ cellTowers: [{ ...cell, signalStrength: -60 }, { ...cell, cellId: 8121, signalStrength: -75 }] });
  });

  it('0x2c: cells, then a counted list of Wi-Fi access points', () => {
    const r = decode(frame(0x2c, dateBytes(time), u16(460), 0, u16(10365), u24(8120), 60, emptyCells(6 * 6), 0, 2, hexOf('a42bb0010203'), 70, hexOf('001801eb4039'), 56));
    expect(r.positions[0]!.attributes.network).toEqual({
      cellTowers: [{ ...cell, signalStrength: -60 }],
      wifiAccessPoints: [
        { macAddress: 'a4:2b:b0:01:02:03', signalStrength: -70 },
        { macAddress: '00:18:01:eb:40:39', signalStrength: -56 },
      ],
    });
  });

  it('0xa1: 4G cells with a 4-byte LAC and an 8-byte cell id', () => {
    const r = decode(frame(0xa1, dateBytes(time), u16(460), 1, u32(0x2541), u32(0), u32(0x0615f804), 62, Buffer.alloc(6 * 13), 0));
    expect(r.positions[0]!.attributes.network?.cellTowers).toEqual([{ mobileCountryCode: 460, mobileNetworkCode: 1, locationAreaCode: 0x2541, cellId: 0x0615f804, signalStrength: -62 }]);
  });

  it('0x69 Wi-Fi: BCD time, access points counted by the length field, cells; answered with the time echoed', () => {
    const body = b(bcd(time), hexOf('a42bb0010203'), 70, 1, u16(460), 0, u16(10365), u16(8120), 60);
    const r = decode(b([0x78, 0x78, 1, 0x69], body, [0x0d, 0x0a]));
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: time, valid: false });
    expect(p.attributes.network).toEqual({ cellTowers: [{ ...cell, signalStrength: -60 }], wifiAccessPoints: [{ macAddress: 'a4:2b:b0:01:02:03', signalStrength: -70 }] });
    expect(r.reply).toEqual(b([0x78, 0x78, 0x00, 0x69], bcd(time), [0x0d, 0x0a]));
  });

  it('0x19 LBS with status: the alarm is raised without a position, the cell kept', () => {
    const r = decode(frame(0x19, CELL, [0x00, 4, 4, 0x0f, 0x02]));
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toMatchObject({ alarm: 'lowBattery', network: { cellTowers: [cell] } });
  });

  it('0xa5 LBS alarm: 4G cell, then the tampering alarm', () => {
    const r = decode(frame(0xa5, u16(460), 0, u32(10365), u32(0), u32(8120), [0x00, 4, 4, 0x13, 0x02]));
    expect(r.attributes).toMatchObject({ alarm: 'tampering', network: { cellTowers: [cell] } });
  });
});

describe('GT06 model layouts', () => {
  it('0x12 S5 (length 0x2b): status, voltage, oil, temperature (sign bit) and odometer in tens of metres', () => {
    const r = decode(frame(0x12, GPS, CELL, 0x02, u16(1320), 20, 0x00, u16(55), 0x85, u32(1234)));
    expect(r.positions[0]!.attributes).toMatchObject({ ignition: true, power: 13.2, rssi: 20, temp1: -5, odometer: 12340, io: { oil: 55 } });
  });

  it('0x12 with the IMEI in front of the GPS block (QH302R)', () => {
    const p = decode(frame(0x12, IMEI_BCD, GPS, CELL)).positions[0]!;
    expect(p.deviceTime).toEqual(time);
    expect(p.lat).toBeCloseTo(48.8566, 5);
  });

  it('0x22 NT series: IMEI and report time first, then voltages, odometer and engine hours', () => {
    const r = decode(frame(0x22, 0x01, IMEI_BCD, dateBytes(time), GPS, 9, CELL, 0x46, u16(2436), 40, 20, 0x00, 0x02, u24(1500), u24(369)));
    expect(r.positions[0]!.attributes).toMatchObject({ power: 24.36, battery: 4, rssi: 20, odometer: 1500, engineHours: 22140 });
  });

  it('0x22 SeeWorld (length 0x2f): ACC, odometer, temperature and humidity', () => {
    const r = decode(frame(0x22, GPS, u16(460), 0, u16(10365), u32(8120), 0x00, 0, 0, u32(5000), u32(0), u16(32), u16(4550)));
    expect(r.positions[0]!.attributes).toMatchObject({ ignition: false, odometer: 5000, temp1: 0.32, io: { humidity: 45.5 } });
  });

  it('0x36 TRX16i (length 0x35): ACC, archive flag, voltages, engine hours in minutes and the RFID tag', () => {
    const r = decode(frame(0x36, GPS, u16(460), 0, u16(10365), u32(8120), 1, 0, 1, u32(900), u16(1251), 40, u24(60), hexOf('c3000001453f9201')));
    expect(r.positions[0]!.attributes).toMatchObject({ ignition: true, archive: true, odometer: 900, power: 12.51, battery: 4, engineHours: 3600, driverUniqueId: 'c3000001453f9201' });
  });

  it('0x36 Jimi 4G status: battery voltage and percentage from its modules, without a fix', () => {
    const r = decode(frame(0x36, 0x00, 5, 4, 0x00, 0x02, u16(0x32), 1, 1, u16(0x18), 2, u16(402), u16(0x6a), 1, 95));
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toMatchObject({ battery: 4.02, batteryLevel: 95, io: { startupStatus: 1 } });
  });

  it('0x61 iButton: the 6-byte key as a decimal number', () => {
    const r = decode(frame(0x61, IMEI_BCD, GPS, u16(460), 0, u16(10365), u32(8120), u32(0), u16(0x2345)));
    expect(r.positions[0]!.attributes.driverUniqueId).toBe(String(0x2345));
  });

  it('0x34 X1: odometer, driver id, voltages, I/O and the analog inputs the port word announces', () => {
    const r = decode(frame(0x34, u32(0), GPS, u16(0), u32(7777), u16(460), 0, u16(10365), u32(8120), u32(42), u16(410), u16(1270), u32(1 << 20), 0x05, 0x02, u16(448)));
    expect(r.positions[0]!.attributes).toMatchObject({ odometer: 7777, driverUniqueId: '42', battery: 4.1, power: 12.7, input: 5, output: 2, adc1: 4.48 });
  });

  it('0xa2 LW4G (length 0x40): 4G cell, voltage, odometer and engine hours in seconds', () => {
    const r = decode(frame(0xa2, GPS, u16(460), 0, u32(10365), u32(0), u32(8120), 0x01, 0x02, u16(1230), 90, 20, 0x00, 0x02, u32(4200), u32(7200), Buffer.alloc(8), u16(3)));
    expect(r.positions[0]!.attributes).toMatchObject({ power: 12.3, batteryLevel: 90, odometer: 4200, engineHours: 7200, input: 3, network: { cellTowers: [cell] } });
  });

  it('0x31 SL4X (length 0x2a): 2-byte MNC, 8-byte cell id, ACC and the altitude', () => {
    const p = decode(frame(0x31, GPS, u16(724), u16(10), u16(50119), u32(0), u32(8120), 1, 0, 0, u16(678))).positions[0]!;
    expect(p.altitude).toBe(678);
    expect(p.attributes).toMatchObject({ ignition: true, network: { cellTowers: [{ mobileCountryCode: 724, mobileNetworkCode: 10, cellId: 8120 }] } });
  });

  it('0x37: a module after the ACC bytes (0x3b: accuracy in centimetres)', () => {
    const p = decode(frame(0x37, GPS, CELL, 1, 0, 0, u16(0x3b), 2, u16(500))).positions[0]!;
    expect(p.attributes.accuracy).toBe(5);
  });

  it('AZ735 0x33 (79 79): no fix, armed state; acknowledged in 79 79 framing', () => {
    const r = decode(extendedFrame(0x33, dateBytes(time), 0, 0, 0, 0, 0xa0, 0));
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toEqual({ armed: true, io: { status: 0xa0 } });
    expect(r.reply).toEqual(buildAck(0x33, 7, true));
    expect(r.reply!.subarray(0, 2).toString('hex')).toBe('7979');
  });

  it('AZ735 0x32 (79 79): GPS with a length byte, a cell and its signal', () => {
    const r = decode(extendedFrame(0x32, dateBytes(time), 12, GPS.subarray(6), 9, CELL, 40, 0, 0, 0x00, 0));
    const p = r.positions[0]!;
    expect(p.lat).toBeCloseTo(48.8566, 5);
    expect(p.attributes).toMatchObject({ rssi: 40, network: { cellTowers: [cell] } });
  });
});
