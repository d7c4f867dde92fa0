import { describe, expect, it } from '@jest/globals';
import { crc16Ibm } from '../../../tracker/protocols/crc.js';
import { teltonika } from '../../../tracker/protocols/teltonika/index.js';
import {
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
    const out = teltonika.commands.locate!(1);
    expect(out.readUInt32BE(0)).toBe(0); // preamble
    expect(out.readUInt32BE(4)).toBe(out.length - 12); // data length
    expect([...out.subarray(8, 11)]).toEqual([0x0c, 0x01, 0x05]); // codec 12, one command, type 05
    expect(out.readUInt32BE(11)).toBe(6);
    expect(out.toString('ascii', 15, 21)).toBe('getgps');
    expect(out[21]).toBe(0x01); // second quantity
    expect(out.readUInt32BE(22)).toBe(crc16Ibm(out, 8, 22));
  });
});
