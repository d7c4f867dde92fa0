import { describe, expect, it } from '@jest/globals';
import { crc16Kermit } from '../../../tracker/protocols/crc.js';
import { encodeCommand } from '../../../tracker/protocols/registry.js';
import { ruptela } from '../../../tracker/protocols/ruptela/index.js';
import {
  ruptelaCommandReply,
  ruptelaHeartbeat,
  ruptelaIdentification,
  ruptelaIo,
  ruptelaPosition,
  ruptelaRecord,
  ruptelaRecords,
} from '../../../tracker/simulator/frames/ruptela.js';
import { hex, protocolState } from './helpers.js';

const IMEI = '356307042441013';
const fix = { time: new Date('2024-05-06T07:08:09Z'), lat: 54.6872, lng: 25.2797, speed: 63, heading: 181.5, altitude: 112.3, satellites: 11 };
const io = (one: [number, number][], two: [number, number][] = [], four: [number, number][] = [], eight: [number, bigint][] = []) =>
  [new Map(one), new Map(two), new Map(four), new Map(eight)] as Parameters<typeof ruptelaRecord>[1];
const decode = (frame: Buffer, conn = protocolState()) => ruptela.decode(frame, conn);
/** A packet as the manufacturer documents it, built by hand: length, IMEI, command, payload, CRC. */
function packet(imei: bigint, command: number, payloadHex: string): Buffer {
  const body = Buffer.concat([Buffer.alloc(8), Buffer.from([command]), hex(payloadHex)]);
  body.writeBigUInt64BE(imei, 0);
  const out = Buffer.alloc(body.length + 4);
  out.writeUInt16BE(body.length, 0);
  body.copy(out, 2);
  out.writeUInt16BE(crc16Kermit(body), out.length - 2);
  return out;
}

describe('Ruptela records', () => {
  it('extended records (68): position in our units, IO mapped, ACK 0002640113bc', () => {
    const record = ruptelaRecord(fix, io([[409, 1], [88, 1]], [[29, 12_640], [30, 4_050], [94, 4_000]], [[65, 1_234_567]], [[34, 0x02a1c3e5f7000041n]]), true, 7);
    const r = decode(ruptelaRecords(IMEI, [record]));
    expect(r.identity).toBe(IMEI);
    expect(r.badChecksum).toBeUndefined();
    expect(r.reply).toEqual(hex('0002640113bc'));
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: fix.time, valid: true, speed: 63, heading: 181.5, altitude: 112.3, satellites: 11 });
    expect(p.lat).toBeCloseTo(54.6872, 7);
    expect(p.lng).toBeCloseTo(25.2797, 7);
    expect(p.attributes).toMatchObject({ event: 7, hdop: 0.9, ignition: true, power: 12.64, battery: 4.05, rpm: 1000, odometer: 1_234_567, alarm: 'jamming', driverUniqueId: '02a1c3e5f7000041' });
    expect(p.attributes.io).toMatchObject({ 409: 1, 29: 12_640, 65: 1_234_567 });
  });

  it('records (1) with 1-byte ids, two records; a record without a fix sits at the last fix, not valid', () => {
    const later = { ...fix, time: new Date(fix.time.getTime() + 30_000), valid: false };
    const frame = ruptelaRecords(IMEI, [ruptelaRecord(fix, io([[5, 1]], [[78, 0xff9c]]), false), ruptelaRecord(later, io([]), false)], 1);
    const r = decode(frame);
    expect(r.reply).toEqual(hex('0002640113bc'));
    expect(r.positions).toHaveLength(2);
    expect(r.positions[0]!.attributes).toMatchObject({ in4: true, temp1: -10 });
    expect(r.positions[1]).toMatchObject({ deviceTime: later.time, valid: false, lat: r.positions[0]!.lat, lng: r.positions[0]!.lng });
  });

  it('extended record parts (record extension n/m) are merged into the first record', () => {
    const first = ruptelaRecord(fix, io([[409, 1]]), true);
    const second = ruptelaRecord(fix, io([], [[29, 24_000]]), true);
    second[5] = 0x21; // record extension: part 1 of 2
    const r = decode(ruptelaRecords(IMEI, [first, second]));
    expect(r.positions).toHaveLength(1);
    expect(r.positions[0]!.attributes).toMatchObject({ ignition: true, power: 24 });
  });

  it('a corrupted packet is refused (command 100, answer 0) so the device sends it again', () => {
    const frame = ruptelaPosition(IMEI, fix);
    frame[frame.length - 1]! ^= 0xff;
    const r = decode(frame);
    expect(r.badChecksum).toBe(true);
    expect(r.reply).toEqual(Buffer.from([0x00, 0x02, 0x64, 0x00, ...hex(crc16Kermit(hex('6400')).toString(16).padStart(4, '0'))]));
  });
});

describe('Ruptela other packets', () => {
  it('identification (15) and heartbeat (16) are answered, nothing stored', () => {
    const id = decode(ruptelaIdentification(IMEI));
    expect(id).toMatchObject({ identity: IMEI, positions: [], heartbeat: true, reply: hex('00027301cb25') });
    expect(decode(ruptelaHeartbeat(IMEI)).reply).toEqual(hex('00027401862d'));
  });

  it('an IMEI with leading zeros keeps 15 digits', () => {
    expect(decode(ruptelaHeartbeat('012345678901234')).identity).toBe('012345678901234');
  });

  it('DTC list (9): one position per trouble code, answered 00026d01c4a4', () => {
    const entry = (time: number, code: string) => {
      const b = Buffer.alloc(19);
      b.writeUInt32BE(time, 1);
      b.writeInt32BE(252797000, 5);
      b.writeInt32BE(546872000, 9);
      b[13] = 2;
      b.write(code, 14, 'latin1');
      return b.toString('hex');
    };
    const r = decode(packet(12345678901234n, 9, `02${entry(1_700_000_000, 'P0101')}${entry(1_700_000_060, 'P0300')}`));
    expect(r.reply).toEqual(hex('00026d01c4a4'));
    expect(r.positions.map((p) => p.attributes.io?.dtcs)).toEqual(['P0101', 'P0300']);
    expect(r.positions[0]).toMatchObject({ deviceTime: new Date(1_700_000_000_000), lat: 54.6872, lng: 25.2797, attributes: { archive: true } });
  });

  it('the answer to an SMS command (7) is the command reply, stored at the last fix', () => {
    const conn = protocolState();
    decode(ruptelaPosition(IMEI, fix), conn);
    const r = decode(ruptelaCommandReply(IMEI, 'Immobilizer on\r\n'), conn);
    expect(r.commandReply).toBe('Immobilizer on');
    expect(r.positions[0]).toMatchObject({ valid: false, attributes: { result: 'Immobilizer on' } });
    expect(r.positions[0]!.lat).toBeCloseTo(fix.lat, 6);
  });
});

describe('Ruptela framing', () => {
  const a = ruptelaIdentification(IMEI);
  const b = ruptelaPosition(IMEI, fix, { ignition: true });

  it('a packet cut at every byte comes out whole once', () => {
    for (let cut = 1; cut < b.length; cut++) {
      const framer = ruptela.createFramer(65536);
      expect([...framer.push(b.subarray(0, cut)), ...framer.push(b.subarray(cut))]).toEqual([b]);
    }
  });

  it('two packets in one read, garbage before them skipped and counted', () => {
    const framer = ruptela.createFramer(65536);
    expect(framer.push(Buffer.concat([hex('ffff0102'), a, b]))).toEqual([a, b]);
    expect(framer.skipped).toBe(4);
  });

  it('a DTC packet with a wrong length field is cut by its entry count', () => {
    const dtc = packet(12345678901234n, 9, `01${'00'.repeat(19)}`);
    dtc.writeUInt16BE(11, 0);
    expect(ruptela.createFramer(65536).push(Buffer.concat([dtc, a]))).toEqual([dtc, a]);
  });

  it('packets over the cap are skipped', () => {
    const framer = ruptela.createFramer(64);
    const big = ruptelaRecords(IMEI, [1, 2, 3].map(() => ruptelaRecord(fix, ruptelaIo())));
    const small = ruptelaHeartbeat(IMEI);
    // Bytes inside the skipped packet may look like a packet's start: that candidate waits for its
    // length, then fails its CRC, so the stream is back in step by the next packet at the latest.
    const out = [...framer.push(Buffer.concat([big, small])), ...framer.push(small)];
    expect(out.length).toBeGreaterThanOrEqual(1);
    expect(out.every((f) => f.equals(small))).toBe(true);
    expect(framer.skipped).toBeGreaterThanOrEqual(big.length);
  });
});

describe('Ruptela commands', () => {
  it('engine stop/resume and text as SMS via GPRS (108); hex verbatim', () => {
    // Length, 100 + 8, the SMS text, CRC-16/KERMIT.
    expect(encodeCommand('ruptela', 'engineStop', 1)).toEqual(hex('0014 6c 7061737320696d6d6f62696c697a6572203130 bc22'));
    expect(encodeCommand('ruptela', 'custom', 1, { text: 'pass setio 1,1' })).toEqual(hex('000f 6c 7061737320736574696f20312c31 3c77'));
    // A version request (100 + 3) built by the caller goes out as given.
    expect(encodeCommand('ruptela', 'custom', 1, { hex: '00016717b9' })).toEqual(hex('00016717b9'));
    expect(encodeCommand('ruptela', 'engineResume', 1)?.subarray(3, -2).toString('latin1')).toBe('pass resetimmob');
    expect(encodeCommand('ruptela', 'locate', 1)).toBeNull();
  });
});
