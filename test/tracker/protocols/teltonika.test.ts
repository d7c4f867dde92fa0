import { describe, expect, it } from '@jest/globals';
import { crc16Ibm } from '../../../tracker/protocols/crc.js';
import { teltonika } from '../../../tracker/protocols/teltonika/index.js';
import {
  avlPacket,
  fmbIo,
  teltonikaAvl,
  teltonikaCommandResponse,
  teltonikaGetGpsReply,
  teltonikaHandshake,
  teltonikaRecord,
} from '../../../tracker/simulator/frames/teltonika.js';
import { hex, protocolState } from './helpers.js';

// Examples published in Teltonika's "Codec" documentation.
const CODEC8_EXAMPLE =
  '000000000000003608010000016B40D8EA30010000000000000000000000000000000105021503010101425E0F01F10000601A014E0000000000000000010000C7CF';
const CODEC8E_EXAMPLE =
  '000000000000004A8E010000016B412CEE000100000000000000000000000000000000010005000100010100010011001D00010010015E2C880002000B000000003544C87A000E000000001DD7E06A00000100002994';
const CODEC16_EXAMPLE =
  '000000000000005F10020000016BDBC7833000000000000000000000000000000000000B05040200010000030002000B00270042563A00000000016BDBC7871800000000000000000000000000000000000B05040200010000030002000B00260042563A00000200005FB3';
const CODEC12_RESPONSE_EXAMPLE =
  '00000000000000900C010600000088494E493A323031392F372F323220373A3232205254433A323031392F372F323220373A3533205253543A32204552523A312053523A302042523A302043463A302046473A3020464C3A302054553A302F302055543A3020534D533A30204E4F4750533A303A3330204750533A31205341543A302052533A332052463A36352053463A31204D443A30010000C78F';

const fix = { time: new Date('2024-05-01T12:00:00.250Z'), lat: 54.6872, lng: 25.2797, speed: 88, heading: 182, altitude: 112, satellites: 11 };

describe('Teltonika handshake', () => {
  it('IMEI becomes the identity; 01 accepts, 00 rejects', () => {
    const r = teltonika.decode(teltonikaHandshake('356307042441013'), protocolState());
    expect(r.identity).toBe('356307042441013');
    expect(r.reply).toEqual(Buffer.from([0x01]));
    expect(teltonika.rejectIdentity(protocolState())).toEqual(Buffer.from([0x00]));
  });

  it('autodetects the handshake', () => {
    expect(teltonika.detect(teltonikaHandshake('356307042441013'))).toBe(true);
    expect(teltonika.detect(hex('78780d01'))).toBe(false);
  });
});

describe('Teltonika AVL: documentation examples', () => {
  it('Codec 8: record, IO groups, count reply', () => {
    const r = teltonika.decode(hex(CODEC8_EXAMPLE), protocolState('x'));
    expect(r.badChecksum).toBeUndefined();
    expect(r.positions).toHaveLength(1);
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2019-06-10T10:04:46.000Z');
    expect(p.lat).toBe(0);
    expect(p.lng).toBe(0);
    expect(p.valid).toBe(false);
    expect(p.attributes.priority).toBe(1);
    expect(p.attributes.io).toEqual({ 21: 3, 1: 1, 66: 24079, 241: 24602, 78: 0 });
    expect(p.attributes.power).toBeCloseTo(24.079, 6);
    expect(p.attributes.in1).toBe(true);
    expect(r.reply).toEqual(hex('00000001'));
  });

  it('Codec 8 Extended: 2-byte ids and counts, 8-byte values', () => {
    const r = teltonika.decode(hex(CODEC8E_EXAMPLE), protocolState('x'));
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2019-06-10T11:36:32.000Z');
    expect(p.attributes.io).toEqual({ 1: 1, 17: 29, 16: 22949000, 11: 893700218, 14: 500686954 });
    expect(p.attributes.odometer).toBe(22949000);
    expect(r.reply).toEqual(hex('00000001'));
  });

  it('Codec 16: 2-byte ids, generation type, two records', () => {
    const r = teltonika.decode(hex(CODEC16_EXAMPLE), protocolState('x'));
    expect(r.badChecksum).toBeUndefined();
    expect(r.positions.map((p) => p.deviceTime.toISOString())).toEqual(['2019-07-10T12:06:54.000Z', '2019-07-10T12:06:55.000Z']);
    expect(r.positions[0]!.attributes).toMatchObject({ event: 11, io: { generationType: 5, 1: 0, 3: 0, 11: 39, 66: 22074 } });
    expect(r.positions[1]!.attributes.io).toEqual({ generationType: 5, 1: 0, 3: 0, 11: 38, 66: 22074 });
    expect(r.reply).toEqual(hex('00000002'));
  });

  it('Codec 12 response becomes a command reply', () => {
    const r = teltonika.decode(hex(CODEC12_RESPONSE_EXAMPLE), protocolState('x'));
    expect(r.commandReply).toMatch(/^INI:2019\/7\/22 7:22 RTC:2019\/7\/22 7:53 RST:2 ERR:1 .* MD:0$/);
    expect(r.positions).toHaveLength(0);
    expect(r.reply).toBeUndefined();
  });
});

describe('Teltonika AVL: simulator packets', () => {
  it('maps FMB IO elements to attributes in product units', () => {
    const packet = teltonikaAvl([teltonikaRecord(fix, { ignition: true, fuelLevel: 63, power: 12.6, batteryLevel: 90 })]);
    const p = teltonika.decode(packet, protocolState('x')).positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2024-05-01T12:00:00.250Z');
    expect(p.lat).toBeCloseTo(54.6872, 7);
    expect(p.lng).toBeCloseTo(25.2797, 7);
    expect(p.speed).toBe(88);
    expect(p.heading).toBe(182);
    expect(p.altitude).toBe(112);
    expect(p.satellites).toBe(11);
    expect(p.valid).toBe(true);
    expect(p.attributes).toMatchObject({ ignition: true, fuelLevel: 63, power: 12.6, batteryLevel: 90 });
    expect(p.attributes.io).toEqual({ 239: 1, 89: 63, 113: 90, 66: 12600 });
  });

  it('maps volts, litres and odometers to the vocabulary and keeps LLS levels raw', () => {
    const io = [
      { id: 67, value: 4012, width: 2 as const },
      { id: 84, value: 455, width: 2 as const },
      { id: 16, value: 123456789, width: 4 as const },
      { id: 199, value: 1500, width: 4 as const },
      { id: 201, value: 310, width: 2 as const },
      { id: 203, value: 290, width: 2 as const },
      { id: 240, value: 1, width: 1 as const },
      { id: 21, value: 4, width: 1 as const },
      { id: 69, value: 1, width: 1 as const },
    ];
    const p = teltonika.decode(teltonikaAvl([{ fix, io }], 0x8e), protocolState('x')).positions[0]!;
    expect(p.attributes).toMatchObject({
      battery: 4.012,
      fuel: 45.5,
      odometer: 123456789,
      tripOdometer: 1500,
      motion: true,
      rssi: 4,
      // LLS levels and the GNSS status have no general meaning: raw, by IO id.
      io: { 201: 310, 203: 290, 69: 1 },
    });
  });

  it('a percentage id with a value past 100 stays raw: no battery level of 29525%', () => {
    const io = [
      { id: 113, value: 29525, width: 2 as const },
      { id: 89, value: 250, width: 1 as const },
      { id: 31, value: 64, width: 1 as const },
    ];
    const p = teltonika.decode(teltonikaAvl([{ fix, io }], 0x8e), protocolState('x')).positions[0]!;
    expect(p.attributes.batteryLevel).toBeUndefined();
    expect(p.attributes.fuelLevel).toBeUndefined();
    expect(p.attributes.engineLoad).toBe(64);
    expect(p.attributes.io).toMatchObject({ 113: 29525, 89: 250, 31: 64 });
  });

  it('Codec 8E variable-length IO stays raw (hex)', () => {
    const io = [{ id: 385, value: Buffer.from('0102030405', 'hex') }];
    const p = teltonika.decode(teltonikaAvl([{ fix, io }], 0x8e), protocolState('x')).positions[0]!;
    expect((p.attributes.io as Record<string, unknown>)[385]).toBe('0102030405');
  });

  it('panic priority is an SOS alarm; several records are counted in the reply', () => {
    const records = [teltonikaRecord(fix), teltonikaRecord({ ...fix, time: new Date('2024-05-01T12:00:05Z') }, { alarm: 'sos' })];
    const r = teltonika.decode(teltonikaAvl(records), protocolState('x'));
    expect(r.positions).toHaveLength(2);
    expect(r.positions[0]!.attributes.alarm).toBeUndefined();
    expect(r.positions[1]!.attributes.alarm).toBe('sos');
    expect(r.reply).toEqual(hex('00000002'));
  });

  it('command response from the simulator', () => {
    const text = teltonikaGetGpsReply(fix);
    expect(teltonika.decode(teltonikaCommandResponse(text), protocolState('x')).commandReply).toBe(text);
  });

  it('bad CRC is flagged but the data still decodes', () => {
    const packet = teltonikaAvl([teltonikaRecord(fix)]);
    packet[packet.length - 1] = packet[packet.length - 1]! ^ 0x01;
    const r = teltonika.decode(packet, protocolState('x'));
    expect(r.badChecksum).toBe(true);
    expect(r.positions).toHaveLength(1);
  });

  it('truncated records give an empty result', () => {
    const packet = teltonikaAvl([teltonikaRecord(fix, { ignition: true })]);
    const length = packet.readUInt32BE(4);
    const cut = Buffer.from(packet);
    cut.writeUInt32BE(length - 5, 4);
    expect(teltonika.decode(cut.subarray(0, cut.length - 5), protocolState('x')).positions).toHaveLength(0);
  });

  it('fmbIo leaves out unknown state', () => {
    expect(fmbIo({})).toEqual([]);
  });
});

describe('Teltonika encoder', () => {
  it('getgps as Codec 12 type 05 with CRC-16/IBM', () => {
    const out = teltonika.commands.locate!(1, {});
    expect(out.readUInt32BE(0)).toBe(0); // preamble
    expect(out.readUInt32BE(4)).toBe(out.length - 12); // data length
    expect([...out.subarray(8, 11)]).toEqual([0x0c, 0x01, 0x05]); // codec 12, one command, type 05
    expect(out.readUInt32BE(11)).toBe(6);
    expect(out.toString('ascii', 15, 21)).toBe('getgps');
    expect(out[21]).toBe(0x01); // second quantity
    expect(out.readUInt32BE(22)).toBe(crc16Ibm(out, 8, 22));
  });
});

/** A Codec 8 record header (time, priority, position, event id), before its IO counts. */
function codec8Head(time: Date, event = 0): Buffer {
  const head = Buffer.alloc(25);
  head.writeBigUInt64BE(BigInt(time.getTime()), 0);
  head.writeInt32BE(Math.round(fix.lng * 1e7), 9);
  head.writeInt32BE(Math.round(fix.lat * 1e7), 13);
  head.writeInt16BE(fix.altitude, 17);
  head.writeUInt16BE(fix.heading, 19);
  head[21] = fix.satellites;
  head.writeUInt16BE(fix.speed, 22);
  head[24] = event;
  return head;
}

/** Codec 12 (no time) or 13 (timestamp in seconds) packet from the device. */
function responsePacket(codec: 0x0c | 0x0d, type: number, data: Buffer, time?: Date): Buffer {
  const stamp = Buffer.alloc(codec === 0x0d ? 4 : 0);
  if (codec === 0x0d) stamp.writeUInt32BE(Math.floor(time!.getTime() / 1000));
  const size = Buffer.alloc(4);
  size.writeUInt32BE(stamp.length + data.length);
  return avlPacket(Buffer.concat([Buffer.from([codec, 1, type]), size, stamp, data, Buffer.from([1])]));
}

/** A state that already saw one record (the connection's last known place). */
function afterOneFix() {
  const conn = protocolState('x');
  teltonika.decode(teltonikaAvl([teltonikaRecord(fix)]), conn);
  return conn;
}

describe('Teltonika IO elements', () => {
  const io = (elements: { id: number; value: number | bigint | Buffer; width?: 1 | 2 | 4 | 8 }[], codec: 0x08 | 0x8e = 0x8e) =>
    teltonika.decode(teltonikaAvl([{ fix, io: elements }], codec), protocolState('x')).positions[0]!.attributes;

  it.each([
    [1, 'hardAcceleration'],
    [2, 'hardBraking'],
    [3, 'hardCornering'],
  ])('green driving %i is the %s alarm', (kind, alarm) => {
    expect(io([{ id: 253, value: kind, width: 1 }, { id: 254, value: 33, width: 1 }]).alarm).toBe(alarm);
  });

  it('the alarm element (236) is a general alarm, idle (251) an idle one; 0 is none', () => {
    expect(io([{ id: 236, value: 1, width: 1 }, { id: 251, value: 1, width: 1 }]).alarm).toBe('general,idle');
    expect(io([{ id: 236, value: 0, width: 1 }, { id: 253, value: 0, width: 1 }]).alarm).toBeUndefined();
  });

  it('CAN/OBD values, inputs, door, SIM and VIN in the vocabulary with its units', () => {
    const a = io([
      { id: 3, value: 1, width: 1 },
      { id: 4, value: 0, width: 1 },
      { id: 31, value: 45, width: 1 },
      { id: 32, value: 0xf6, width: 1 }, // -10 °C
      { id: 81, value: 87, width: 1 },
      { id: 82, value: 30, width: 1 },
      { id: 662, value: 1, width: 1 },
      { id: 10, value: 3300, width: 2 },
      { id: 85, value: 2100, width: 2 },
      { id: 83, value: 1234, width: 4 }, // 0.1 L
      { id: 11, value: 8937204016201540000n, width: 8 },
      { id: 256, value: Buffer.from('WVWZZZ1JZXW000001') },
    ]);
    expect(a).toMatchObject({ in3: true, in4: false, engineLoad: 45, coolantTemp: -10, obdSpeed: 87, throttle: 30, door: true, adc2: 3.3, rpm: 2100, fuelUsed: 123.4, iccid: '8937204016201540000', vin: 'WVWZZZ1JZXW000001' });
  });

  it('EYE sensor temperature (°C) and roll go under io by name, signed', () => {
    const a = io([
      { id: 10800, value: 0x10000 - 1187, width: 2 },
      { id: 10832, value: 0x10000 - 15, width: 2 },
    ]);
    expect(a.io).toMatchObject({ eyeTemp1: -11.87, eyeRoll1: -15, 10800: 64349 });
  });

  it('a Bluetooth sensor list (548) gives each tag its values under io', () => {
    const tag1 = Buffer.from([0x00, 0x01, 0xc5, 0x01, 0x06, 0x7c, 0xd9, 0x41, 0x4e, 0x1a, 0x54, 0x02, 0x02, 0xc0, 0x6d, 0x06, 0x02, 0x09, 0x29, 0x0e, 0x02, 0x0b, 0xd6]);
    const tag2 = Buffer.from([0x00, 0x01, 0xb0, 0x08, 0x01, 0x01]);
    const list = Buffer.concat([Buffer.from([0x01, tag1.length]), tag1, Buffer.from([tag2.length]), tag2]);
    const a = io([{ id: 548, value: list }]);
    expect(a.io).toMatchObject({
      tag1Rssi: -59,
      tag1Id: '7cd9414e1a54',
      tag1LowBattery: true,
      tag1Voltage: 3090, // mV
      tag1Temp: 2345,
      tag1Battery: 3030, // mV
      tag2Rssi: -80,
      tag2Magnet: true,
      548: list.toString('hex'),
    });
  });

  it('the serving cell becomes network: GSM (205) or LTE (636) id, area (206), operator (241)', () => {
    const gsm = io([{ id: 205, value: 902, width: 2 }, { id: 206, value: 1, width: 2 }, { id: 241, value: 24602, width: 4 }]);
    expect(gsm.network).toEqual({ cellTowers: [{ cellId: 902, locationAreaCode: 1, mobileCountryCode: 246, mobileNetworkCode: 2 }] });
    const lte = io([{ id: 636, value: 26738945, width: 4 }, { id: 206, value: 20161, width: 2 }]);
    expect(lte.network).toEqual({ radioType: 'lte', cellTowers: [{ cellId: 26738945, locationAreaCode: 20161 }] });
    expect(io([{ id: 205, value: 0, width: 2 }, { id: 206, value: 0, width: 2 }]).network).toBeUndefined();
  });
});

describe('Teltonika packets beyond the documented layout', () => {
  it('Codec 8 with the 16-byte IO group of "extended" firmware is recognised by its layout', () => {
    const record = Buffer.concat([codec8Head(fix.time), hex('02 01 f0 01 00 00 00 01 cb'), Buffer.alloc(16, 0xab)]);
    // total IO count 2; 1-byte group: motion; 2-, 4-, 8-byte groups empty; 16-byte group: id 203.
    const r = teltonika.decode(avlPacket(Buffer.concat([hex('08 01'), record, hex('01')])), protocolState('x'));
    expect(r.badChecksum).toBeUndefined();
    expect(r.positions).toHaveLength(1);
    expect(r.positions[0]!.attributes).toMatchObject({ motion: true, io: { 240: 1, 203: 'ab'.repeat(16) } });
    expect(r.reply).toEqual(hex('00000001'));
  });

  it('a packet whose length field runs past its bytes still gives its whole records', () => {
    const packet = teltonikaAvl([teltonikaRecord(fix, { ignition: true })]);
    packet.writeUInt32BE(packet.readUInt32BE(4) + 100, 4);
    const r = teltonika.decode(packet, protocolState('x'));
    expect(r.positions.map((p) => p.attributes.ignition)).toEqual([true]);
  });
});

describe('Teltonika Codec 12 and 13 from the device', () => {
  it('a response is the command reply and a position at the last known place, not valid, with the text in result', () => {
    const conn = afterOneFix();
    const before = Date.now();
    const r = teltonika.decode(teltonikaCommandResponse('DOUT1:1 Timeout:INFINITY'), conn);
    expect(r.commandReply).toBe('DOUT1:1 Timeout:INFINITY');
    expect(r.reply).toBeUndefined(); // responses are not acknowledged
    expect(r.positions).toHaveLength(1);
    const p = r.positions[0]!;
    expect(p).toMatchObject({ valid: false, lat: fix.lat, lng: fix.lng, speed: 0, attributes: { result: 'DOUT1:1 Timeout:INFINITY' } });
    expect(p.deviceTime.getTime()).toBeGreaterThanOrEqual(before); // Codec 12 has no time: its arrival
  });

  it('the last place is the last valid fix, not a later record without one', () => {
    const conn = afterOneFix();
    const noFix = { ...fix, time: new Date('2024-05-01T12:00:10Z'), lat: 0, lng: 0, valid: false };
    teltonika.decode(teltonikaAvl([teltonikaRecord(noFix)]), conn);
    expect(teltonika.decode(teltonikaCommandResponse('OK'), conn).positions[0]).toMatchObject({ lat: fix.lat, lng: fix.lng });
  });

  it('binary serial data is shown as hex', () => {
    const r = teltonika.decode(responsePacket(0x0c, 0x06, hex('010300010015d5c5')), afterOneFix());
    expect(r.positions[0]!.attributes.result).toBe('010300010015d5c5');
  });

  it('camera packets (type 0D) give nothing', () => {
    const r = teltonika.decode(responsePacket(0x0c, 0x0d, hex('0100000001')), afterOneFix());
    expect(r).toMatchObject({ positions: [] });
    expect(r.commandReply).toBeUndefined();
  });

  it('Codec 13 takes its timestamp; serial data (type 05) is a result but no command reply', () => {
    const time = new Date('2024-05-01T12:05:00Z');
    const r = teltonika.decode(responsePacket(0x0d, 0x05, Buffer.from('#GET DATAORD\r\n'), time), afterOneFix());
    expect(r.commandReply).toBeUndefined();
    expect(r.positions[0]).toMatchObject({ deviceTime: time, valid: false, attributes: { result: '#GET DATAORD' } });
  });

  it('Codec 13 from a card reader (GTSL) identifies the driver', () => {
    const time = new Date('2024-05-01T12:05:00Z');
    const r = teltonika.decode(responsePacket(0x0d, 0x06, Buffer.from('GTSL|6|1|0|12749884|1|\r\n'), time), afterOneFix());
    expect(r.commandReply).toBeUndefined();
    expect(r.positions[0]!.attributes).toEqual({ driverUniqueId: '12749884' });
  });

  it('a Codec 13 stamp from an unset clock gives way to the arrival time', () => {
    const r = teltonika.decode(responsePacket(0x0d, 0x05, Buffer.from('getinfo'), new Date(364_000)), afterOneFix());
    expect(r.positions[0]!.deviceTime.getFullYear()).toBeGreaterThanOrEqual(2026);
  });

  it('before any record on the connection a response has no place: reply and attributes only', () => {
    const r = teltonika.decode(teltonikaCommandResponse('OK'), protocolState('x'));
    expect(r).toMatchObject({ positions: [], commandReply: 'OK', attributes: { result: 'OK' } });
  });
});

describe('Teltonika Codec 7 (GH3000)', () => {
  const EPOCH_2007 = Date.UTC(2007, 0, 1);
  /** One record: time, global mask, then the given location block and IO groups. */
  function gh3000Record(time: Date, globalMask: number, body: Buffer): Buffer {
    const head = Buffer.alloc(5);
    head.writeUInt32BE((time.getTime() - EPOCH_2007) / 1000);
    head[4] = globalMask;
    return Buffer.concat([head, body]);
  }
  const location = () => {
    const b = Buffer.alloc(19);
    b[0] = 0xff; // every field, the cell with its signal and operator
    b.writeFloatBE(54.6872, 1);
    b.writeFloatBE(25.2797, 5);
    b.writeUInt16BE(112, 9);
    b[11] = 32; // 32/256 of a turn: 45°
    b[12] = 36; // km/h
    b[13] = 7;
    b.writeUInt16BE(1, 14); // LAC
    b.writeUInt16BE(779, 16); // cell id
    b[18] = 22; // signal
    return Buffer.concat([b, hex('000060 1a')]); // operator 24602
  };
  const t1 = new Date('2024-05-01T12:00:00Z');
  const t2 = new Date('2024-05-01T12:01:00Z');
  // Record 1: location; 1-byte IO battery level 80 and SOS; 2-byte IO battery 4012 mV.
  const first = gh3000Record(t1, 0x07, Buffer.concat([location(), hex('02 01 50 de 01'), hex('01 43 0fac')]));
  // Record 2: no location block, one 1-byte IO (motion).
  const second = gh3000Record(t2, 0x02, hex('01 f0 01'));
  const packet = avlPacket(Buffer.concat([hex('07 02'), first, second, hex('02')]));

  it('decodes located records in product units, with the cell as network, and acknowledges the count', () => {
    const r = teltonika.decode(packet, protocolState('x'));
    expect(r.badChecksum).toBeUndefined();
    expect(r.reply).toEqual(hex('00000002'));
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: t1, valid: true, altitude: 112, heading: 45, speed: 36, satellites: 7 });
    expect(p.lat).toBeCloseTo(54.6872, 4);
    expect(p.lng).toBeCloseTo(25.2797, 4);
    expect(p.attributes).toMatchObject({
      batteryLevel: 80,
      battery: 4.012,
      alarm: 'sos',
      network: { cellTowers: [{ cellId: 779, locationAreaCode: 1, mobileCountryCode: 246, mobileNetworkCode: 2, signalStrength: 22 }] },
    });
  });

  it('a record without a location block stays at the last place, not valid', () => {
    const p = teltonika.decode(packet, protocolState('x')).positions[1]!;
    expect(p).toMatchObject({ deviceTime: t2, valid: false, attributes: { motion: true } });
    expect(p.lat).toBeCloseTo(54.6872, 4);
  });
});
