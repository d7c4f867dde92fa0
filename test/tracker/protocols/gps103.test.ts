// GPS103 decoding per message type, frames from the simulator's builders and the documented
// layouts: values in our units, the answers the unit waits for, and the command encodings.
import { describe, expect, it } from '@jest/globals';
import { gps103 } from '../../../tracker/protocols/gps103/index.js';
import { encodeCommand } from '../../../tracker/protocols/registry.js';
import { gps103Alarm, gps103CellReport, gps103Handshake, gps103Heartbeat, gps103Position } from '../../../tracker/simulator/frames/gps103.js';

const IMEI = '864502031234567';
const fix = { time: new Date('2024-03-04T05:06:07Z'), lat: -33.8688, lng: 151.2093, speed: 55.56, heading: 123.45, altitude: 42 };
const decode = (frame: Buffer | string) => gps103.decode(typeof frame === 'string' ? Buffer.from(frame, 'latin1') : frame, { state: {} });

describe('GPS103 decoder', () => {
  it('answers the handshake LOAD and learns the IMEI', () => {
    expect(decode(gps103Handshake(IMEI))).toEqual({ identity: IMEI, positions: [], heartbeat: true, reply: Buffer.from('LOAD') });
  });

  it('answers the bare-IMEI heartbeat ON', () => {
    expect(decode(gps103Heartbeat(IMEI))).toEqual({ identity: IMEI, positions: [], heartbeat: true, reply: Buffer.from('ON') });
  });

  it('reads a tracker report in our units, unanswered', () => {
    const r = decode(gps103Position(IMEI, fix, { ignition: true, fuelLevel: 37.5 }));
    expect(r.identity).toBe(IMEI);
    expect(r.reply).toBeUndefined();
    expect(r.positions).toHaveLength(1);
    const p = r.positions[0]!;
    expect(p.deviceTime).toEqual(fix.time);
    expect(p.valid).toBe(true);
    expect(p.lat).toBeCloseTo(fix.lat, 5);
    expect(p.lng).toBeCloseTo(fix.lng, 5);
    expect(p.speed).toBeCloseTo(55.56, 2);
    expect(p.heading).toBeCloseTo(123.45, 2);
    expect(p.altitude).toBe(42);
    expect(p.attributes).toEqual({ ignition: true, door: false, io: { fuel1: 37.5 } });
  });

  it("moves the unit's local time to UTC by the fix's UTC time of day", () => {
    // Local 2024-01-01 01:30 (UTC+2), fix at 23:30:15 UTC the day before.
    const r = decode('imei:864502031234567,tracker,2401010130,,F,233015.000,A,5130.0000,N,00007.5000,W,0.00,0;');
    expect(r.positions[0]!.deviceTime).toEqual(new Date('2023-12-31T23:30:15Z'));
    expect(r.positions[0]!.lat).toBeCloseTo(51.5, 6);
    expect(r.positions[0]!.lng).toBeCloseTo(-0.125, 6);
  });

  it('raises the alarm named in the keyword; help me is answered **,imei:<imei>,E;', () => {
    const sos = decode(gps103Alarm(IMEI, fix, 'sos'));
    expect(sos.positions[0]!.attributes.alarm).toBe('sos');
    expect(sos.reply?.toString()).toBe(`**,imei:${IMEI},E;`);
    expect(decode(gps103Alarm(IMEI, fix, 'powerCut')).positions[0]!.attributes.alarm).toBe('powerCut');
    expect(decode(gps103Alarm(IMEI, fix, 'overspeed')).positions[0]!.attributes.alarm).toBe('overspeed');
    expect(decode(gps103Alarm(IMEI, fix, 'lowBattery')).reply).toBeUndefined();
    const temperature = decode(gps103Position(IMEI, fix, {}, 'T:+31.5')).positions[0]!.attributes;
    expect(temperature).toMatchObject({ alarm: 'temperature', temp1: 31.5 });
  });

  it('reads acc on/off as the ignition, rfid as the driver and other keywords as the event', () => {
    expect(decode(gps103Position(IMEI, fix, { ignition: false }, 'acc on')).positions[0]!.attributes.ignition).toBe(false);
    expect(decode(`imei:${IMEI},acc off,2403040506,,F,050607.000,A,3352.1280,S,15112.5580,E,0.00,0;`).positions[0]!.attributes).toEqual({ ignition: false });
    expect(decode(`imei:${IMEI},rfid,2403040506,0012345678,F,050607.000,A,3352.1280,S,15112.5580,E,0.00,0;`).positions[0]!.attributes).toEqual({ driverUniqueId: '0012345678', event: 'rfid' });
    expect(decode(gps103Position(IMEI, fix, {}, '001')).positions[0]!.attributes.event).toBe('001');
  });

  it('gives a report without a fix back as attributes with the serving cell', () => {
    const r = decode(gps103CellReport(IMEI, fix.time, 0x2a1f, 0xc0de, 'help me'));
    expect(r.positions).toEqual([]);
    expect(r.attributes).toEqual({ alarm: 'sos', network: { cellTowers: [{ locationAreaCode: 0x2a1f, cellId: 0xc0de }] } });
    expect(decode(`imei:${IMEI},tracker,2403040506,,L,;`)).toEqual({ identity: IMEI, positions: [], heartbeat: true });
  });

  it('gives OBD readings back as attributes in our units', () => {
    const r = decode(`imei:${IMEI},OBD,240304050607,123456,1.50,8.25,120,64,35.5%,+88,12.0%,2100,13.85,P0300,P0171,,;`);
    expect(r.positions).toEqual([]);
    expect(r.attributes).toEqual({
      odometer: 123456,
      engineHours: 120 * 3600,
      obdSpeed: 64,
      engineLoad: 35.5,
      coolantTemp: 88,
      throttle: 12,
      rpm: 2100,
      battery: 13.85,
      io: { fuelConsumption: 8.25, dtcs: 'P0300 P0171' },
    });
  });

  it("reads the '*'-terminated format: decimal degrees and km/h", () => {
    const r = decode(`imei:${IMEI},Unit 7,---,------,----,050607,040324,21,1,-33.86880,151.20930,060,090,0042,0.90,09,1,0,---,*`);
    expect(r.positions).toEqual([
      { deviceTime: fix.time, valid: true, lat: -33.8688, lng: 151.2093, speed: 60, heading: 90, altitude: 42, satellites: 9, attributes: { rssi: 21, hdop: 0.9, ignition: true, charge: false } },
    ]);
  });

  it('answers ON to a report with the IMEI in front, and decodes the report', () => {
    const r = decode(Buffer.concat([Buffer.from(IMEI), gps103Position(IMEI, fix)]));
    expect(r.reply?.toString()).toBe('ON');
    expect(r.positions).toHaveLength(1);
  });

  it('stores no photo packets', () => {
    expect(decode(`imei:${IMEI},vr,0c00ffd8ffe000104a46;`)).toEqual({ identity: IMEI, positions: [], heartbeat: true });
  });
});

describe('GPS103 commands', () => {
  const cmd = (type: Parameters<typeof encodeCommand>[1], params = {}) => encodeCommand('gps103', type, 1, { identity: IMEI, ...params })?.toString('latin1');

  it('encodes each command as **,imei:<imei>,<code>', () => {
    expect(cmd('locate')).toBe(`**,imei:${IMEI},B`);
    expect(cmd('engineStop')).toBe(`**,imei:${IMEI},J`);
    expect(cmd('engineResume')).toBe(`**,imei:${IMEI},K`);
    expect(cmd('setInterval', { seconds: 300 })).toBe(`**,imei:${IMEI},C,05m`);
    expect(cmd('setInterval', { seconds: 30 })).toBe(`**,imei:${IMEI},C,30s`);
    expect(cmd('setInterval', { seconds: 7200 })).toBe(`**,imei:${IMEI},C,02h`);
    expect(cmd('custom', { text: 'H,080' })).toBe(`**,imei:${IMEI},H,080`);
    expect(cmd('reboot')).toBeUndefined();
  });

  it('refuses to encode a command without the IMEI to name', () => {
    expect(() => encodeCommand('gps103', 'locate', 1, {})).toThrow(/IMEI/);
  });
});
