import type { DeviceAlarm } from '../../../tracker/simulator/frames/fix.js';
import { describe, expect, it } from '@jest/globals';
import { crc16X25 } from '../../../tracker/protocols/crc.js';
import { buildAck } from '../../../tracker/protocols/gt06/ack.js';
import { encodeCommand } from '../../../tracker/protocols/gt06/encoder.js';
import { gt06 } from '../../../tracker/protocols/gt06/index.js';
import {
  gt06Alarm,
  gt06CommandReply,
  gt06Frame,
  gt06GpsBlock,
  gt06Heartbeat,
  gt06Login,
  gt06Position,
  gt06PositionLegacy,
  gt06WhereReply,
} from '../../../tracker/simulator/frames/gt06.js';
import { hex, protocolState } from './helpers.js';

const fix = { time: new Date('2024-03-05T06:07:08Z'), lat: -33.868, lng: 151.2093, speed: 57, heading: 271, satellites: 9 };

describe('GT06 decoder: manual examples', () => {
  it('login: IMEI from BCD, ACK echoes the serial with CRC', () => {
    const r = gt06.decode(hex('78 78 0D 01 01 23 45 67 89 01 23 45 00 01 8C DD 0D 0A'), protocolState());
    expect(r.identity).toBe('123456789012345');
    expect(r.positions).toHaveLength(0);
    expect(r.badChecksum).toBeUndefined();
    expect(r.reply?.toString('hex')).toBe('787805010001d9dc0d0a');
  });

  it('GPS + LBS 0x12: time, coordinates, course and validity', () => {
    const frame = hex('78 78 1F 12 0B 08 1D 11 2E 10 CF 02 7A C7 EB 0C 46 58 49 00 14 8F 01 CC 00 28 7D 00 1F B8 00 03 80 81 0D 0A');
    const r = gt06.decode(frame, protocolState('123456789012345'));
    expect(r.positions).toHaveLength(1);
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2011-08-29T17:46:16.000Z');
    expect(p.lat).toBeCloseTo(23.1116683, 6);
    expect(p.lng).toBeCloseTo(114.409285, 6);
    expect(p.speed).toBe(0);
    expect(p.heading).toBe(143);
    expect(p.valid).toBe(true);
    expect(p.satellites).toBe(15);
    expect(r.reply?.toString('hex')).toBe('787805120003903f0d0a');
  });

  it('status 0x13 is a heartbeat and is acknowledged; its status bytes are reported', () => {
    const r = gt06.decode(hex('78 78 0A 13 40 04 04 00 01 00 0F DC EE 0D 0A'), protocolState('123456789012345'));
    expect(r.heartbeat).toBe(true);
    expect(r.positions).toHaveLength(0);
    expect(r.reply?.toString('hex')).toBe('78780513000f008f0d0a');
    expect(r.attributes).toEqual({ ignition: false, charge: false, blocked: false, batteryLevel: 66, rssi: 4 });
  });
});

describe('GT06 decoder: simulator frames', () => {
  it('0x22 position with ignition from the ACC byte and course word', () => {
    const r = gt06.decode(gt06Position(fix, { ignition: true }, 7), protocolState());
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2024-03-05T06:07:08.000Z');
    expect(p.lat).toBeCloseTo(-33.868, 5);
    expect(p.lng).toBeCloseTo(151.2093, 5);
    expect(p.speed).toBe(57);
    expect(p.heading).toBe(271);
    expect(p.attributes.ignition).toBe(true);
    expect(r.reply).toEqual(buildAck(0x22, 7));
  });

  it('0x12 west/north hemisphere and invalid fix', () => {
    const p = gt06.decode(gt06PositionLegacy({ ...fix, lat: 40.5, lng: -3.7, valid: false }), protocolState()).positions[0]!;
    expect(p.lat).toBeCloseTo(40.5, 5);
    expect(p.lng).toBeCloseTo(-3.7, 5);
    expect(p.valid).toBe(false);
  });

  it.each<[DeviceAlarm, string]>([
    ['sos', 'sos'],
    ['powerCut', 'powerCut'],
    ['vibration', 'vibration'],
    ['overspeed', 'overspeed'],
    ['lowBattery', 'lowBattery'],
  ])('0x16 alarm %s', (alarm, expected) => {
    const r = gt06.decode(gt06Alarm(fix, alarm, { ignition: false, batteryLevel: 50 }, 3), protocolState());
    const p = r.positions[0]!;
    expect(p.attributes.alarm).toBe(expected);
    expect(p.attributes.ignition).toBe(false);
    expect(p.attributes.batteryLevel).toBe(50);
    expect(r.reply).toEqual(buildAck(0x16, 3));
  });

  it('0x10 GPS only and 0x11 GPS with the wide cell block', () => {
    const gps = gt06.decode(gt06Frame(0x10, gt06GpsBlock(fix), 1), protocolState()).positions[0]!;
    expect(gps.lat).toBeCloseTo(-33.868, 5);
    const cell = Buffer.from('01cc00010fa000123456', 'hex'); // MCC, MNC (2 bytes), LAC, cell id (4 bytes)
    const wide = gt06.decode(gt06Frame(0x11, Buffer.concat([gt06GpsBlock(fix), cell]), 1), protocolState());
    expect(wide.positions[0]!.lng).toBeCloseTo(151.2093, 5);
    expect(wide.positions[0]!.attributes.odometer).toBeUndefined();
  });

  it('0x26 and 0x27 carry the same status block (0x27 adds a geofence byte)', () => {
    const lbs = Buffer.from('0901cc00287d001fb8', 'hex');
    const status = Buffer.from([0x02 | (4 << 3), 0x03, 0x04, 0x00, 0x02]); // ACC on, SOS bits, level 3
    const r26 = gt06.decode(gt06Frame(0x26, Buffer.concat([gt06GpsBlock(fix), lbs, status]), 1), protocolState());
    expect(r26.positions[0]!.attributes).toMatchObject({ alarm: 'sos', ignition: true, batteryLevel: 50 });
    const r27 = gt06.decode(gt06Frame(0x27, Buffer.concat([gt06GpsBlock(fix), lbs, status, Buffer.from([1])]), 1), protocolState());
    expect(r27.positions[0]!.attributes).toMatchObject({ alarm: 'sos', ignition: true, batteryLevel: 50 });
    expect(r27.reply).toEqual(buildAck(0x27, 1));
  });

  it('0x22 odometer tail', () => {
    const body = Buffer.concat([gt06GpsBlock(fix), Buffer.from('01cc00287d001fb8010000', 'hex'), Buffer.from('0001e240', 'hex')]);
    expect(gt06.decode(gt06Frame(0x22, body, 1), protocolState()).positions[0]!.attributes.odometer).toBe(123456);
  });

  it('0x13 heartbeat from the simulator', () => {
    const r = gt06.decode(gt06Heartbeat({ ignition: true }, 9), protocolState());
    expect(r.heartbeat).toBe(true);
    expect(r.reply).toEqual(buildAck(0x13, 9));
    expect(r.attributes?.alarm).toBeUndefined();
  });

  it('an SOS in a 0x13 heartbeat (no fix) is reported as an attribute', () => {
    const r = gt06.decode(gt06Heartbeat({ alarm: 'sos', batteryLevel: 50 }, 10), protocolState());
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toMatchObject({ alarm: 'sos', batteryLevel: 50 });
    expect(r.reply).toEqual(buildAck(0x13, 10));
  });

  it('a 0x16 alarm whose GPS block is empty still carries the alarm', () => {
    const frame = gt06Alarm(fix, 'sos', {}, 4);
    frame.fill(0, 4, 10); // no date: the device has never had a fix
    const r = gt06.decode(frame, protocolState());
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toMatchObject({ alarm: 'sos' });
    expect(r.reply).toEqual(buildAck(0x16, 4));
  });

  it('0x21 command reply: text, and the WHERE# answer becomes a position', () => {
    const r = gt06.decode(gt06CommandReply(gt06WhereReply(fix), 42), protocolState());
    expect(r.commandReply).toMatch(/^Current position!Lat:S33\.868000,Lon:E151\.209300/);
    expect(r.positions[0]!.lat).toBeCloseTo(-33.868, 6);
    expect(r.positions[0]!.deviceTime.toISOString()).toBe('2024-03-05T06:07:08.000Z');
    expect(r.reply).toBeUndefined();
  });

  it('0x15 command reply (older firmware)', () => {
    const text = Buffer.from('Relay,1 OK', 'ascii');
    const body = Buffer.concat([Buffer.from([4 + text.length, 0, 0, 0, 5]), text, Buffer.from([0, 2])]);
    const r = gt06.decode(gt06Frame(0x15, body, 1), protocolState());
    expect(r.commandReply).toBe('Relay,1 OK');
  });

  it('bad CRC still decodes but is flagged', () => {
    const frame = gt06Position(fix);
    frame[frame.length - 3] = frame[frame.length - 3]! ^ 0xff;
    const r = gt06.decode(frame, protocolState());
    expect(r.badChecksum).toBe(true);
    expect(r.positions).toHaveLength(1);
  });

  it('truncated frames give an empty result', () => {
    const frame = gt06Position(fix);
    for (let n = 0; n < frame.length - 6; n++) {
      expect(() => gt06.decode(frame.subarray(0, n), protocolState())).not.toThrow();
    }
    expect(gt06.decode(frame.subarray(0, 20), protocolState()).positions).toHaveLength(0);
  });
});

describe('GT06 encoder', () => {
  it('WHERE# locate with server flag and serial from commandSeq', () => {
    const out = gt06.commands.locate!(0, {});
    expect(out.subarray(0, 5).toString('hex')).toBe('787810800a'); // header, length 16, 0x80, flag + text = 10
    expect(out.readUInt32BE(5)).toBe(0);
    expect(out.toString('ascii', 9, 15)).toBe('WHERE#');
    expect(out.readUInt16BE(15)).toBe(0); // serial
    expect(out.readUInt16BE(17)).toBe(crc16X25(out, 2, 17));
    expect(out.subarray(19).toString('hex')).toBe('0d0a');
  });

  it('carries the command sequence as server flag', () => {
    const out = encodeCommand('WHERE#', 0x01020304);
    expect(out.readUInt32BE(5)).toBe(0x01020304);
    expect(out.readUInt16BE(out.length - 6)).toBe(0x0304);
    expect(out[2]).toBe(out.length - 5);
    const reply = gt06.decode(gt06CommandReply('OK', out.readUInt32BE(5)), protocolState());
    expect(reply.commandReply).toBe('OK');
  });

  it('rejectIdentity closes without a message', () => {
    expect(gt06.rejectIdentity(protocolState())).toBeNull();
  });
});
