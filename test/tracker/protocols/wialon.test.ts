import { describe, expect, it } from '@jest/globals';
import { crc16Ibm } from '../../../tracker/protocols/crc.js';
import { encodeCommand } from '../../../tracker/protocols/registry.js';
import { decodeWialon } from '../../../tracker/protocols/wialon/decoder.js';
import { wialon } from '../../../tracker/protocols/wialon/index.js';
import { wialonBlackBox, wialonLogin, wialonMessage, wialonPing, wialonPosition, wialonShortPosition } from '../../../tracker/simulator/frames/wialon.js';
import { protocolState } from './helpers.js';

const line = (s: string) => Buffer.from(`${s}\r\n`, 'utf8');
const fix = { time: new Date('2024-05-06T07:08:09Z'), lat: -33.8688, lng: 151.2093, speed: 72.5, heading: 270, altitude: 58, satellites: 8 };
const receivedAt = new Date('2024-05-06T07:10:00Z');
const decode = (frame: Buffer, conn = protocolState('861230043209218')) => decodeWialon(frame, conn, receivedAt);
/** Appends the IPS 2.0 CRC (CRC-16/ARC of the body after "#TYPE#", up to its last separator). */
const v2 = (type: string, body: string) => line(`#${type}#${body}${crc16Ibm(Buffer.from(body, 'utf8')).toString(16).toUpperCase()}`);

describe('Wialon IPS login and ping', () => {
  it('1.1 and 2.0 logins identify the unit and are answered #AL#1', () => {
    expect(decode(line('#L#861230043209218;NA'), protocolState())).toMatchObject({ identity: '861230043209218', positions: [], reply: line('#AL#1') });
    const r = decode(wialonLogin('861230043209218', 'secret'), protocolState());
    expect(r).toMatchObject({ identity: '861230043209218', reply: line('#AL#1') });
    expect(r.badChecksum).toBeUndefined();
    expect(decode(line('#L#2.0;861230043209218;secret;0000'), protocolState()).badChecksum).toBe(true);
  });

  it('an unknown unit is refused #AL#0; a ping is answered #AP#', () => {
    expect(wialon.rejectIdentity(protocolState())).toEqual(line('#AL#0'));
    expect(decode(wialonPing())).toMatchObject({ positions: [], heartbeat: true, reply: line('#AP#') });
  });
});

describe('Wialon IPS data', () => {
  it('SD (1.1): position in our units, answered #ASD#1', () => {
    const r = decode(line('#SD#150622;093012;5957.1234;N;03018.4567;E;54;12;21;6'));
    expect(r.reply).toEqual(line('#ASD#1'));
    const p = r.positions[0]!;
    expect(p).toMatchObject({ deviceTime: new Date('2022-06-15T09:30:12Z'), valid: true, speed: 54, heading: 12, altitude: 21, satellites: 6 });
    expect(p.lat).toBeCloseTo(59 + 57.1234 / 60, 6);
    expect(p.lng).toBeCloseTo(30 + 18.4567 / 60, 6);
  });

  it('SD 2.0 with its CRC; southern and western hemispheres; a wrong CRC is flagged', () => {
    const r = decode(wialonShortPosition(fix));
    expect(r.badChecksum).toBeUndefined();
    expect(r.positions[0]).toMatchObject({ deviceTime: fix.time, valid: true, speed: 72.5, heading: 270, altitude: 58, satellites: 8 });
    expect(r.positions[0]!.lat).toBeCloseTo(-33.8688, 5);
    expect(r.positions[0]!.lng).toBeCloseTo(151.2093, 5);
    const west = decode(v2('SD', '060524;070809;4042.7700;N;07400.3600;W;0;0;10;7;'));
    expect(west.positions[0]!.lng).toBeCloseTo(-74.006, 5);
    expect(decode(line('#SD#060524;070809;4042.7700;N;07400.3600;W;0;0;10;7;ABCD')).badChecksum).toBe(true);
  });

  it('D: hdop, inputs, outputs, ADC, iButton and typed params mapped, answered #AD#1', () => {
    const r = decode(v2('D', '060524;070809;3352.1280;S;15112.5580;E;72.5;270;58;8;0.9;5;2;12.6,0.4;00A1B2C3;motion:3:true,fuel:2:41.5,bat:1:87,temp:1:31,SOS:1:1,rs485_fls:1:1024,cmt:3:Батарея 100 %;'));
    expect(r.reply).toEqual(line('#AD#1'));
    expect(r.badChecksum).toBeUndefined();
    expect(r.positions[0]!.attributes).toEqual({
      hdop: 0.9,
      input: 5,
      output: 2,
      adc1: 12.6,
      adc2: 0.4,
      driverUniqueId: '00A1B2C3',
      motion: true,
      fuel: 41.5,
      batteryLevel: 87,
      alarm: 'sos',
      io: { deviceTemp: 31, sos: 1, rs485_fls: 1024, cmt: 'Батарея 100 %' },
    });
  });

  it('cell towers in params become the network block', () => {
    const r = decode(line('#D#NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;;NA;mcc:1:244,mnc:1:5,lac:1:4101,cell_id:1:30211,mcc1:1:244,mnc1:1:5,lac1:1:4102,cell_id1:1:30212,mcc2:1:1'));
    expect(r.positions[0]!.attributes.network).toEqual({
      cellTowers: [
        { mobileCountryCode: 244, mobileNetworkCode: 5, locationAreaCode: 4101, cellId: 30211 },
        { mobileCountryCode: 244, mobileNetworkCode: 5, locationAreaCode: 4102, cellId: 30212 },
      ],
    });
    expect(r.positions[0]!.attributes.io).toEqual({ mcc2: 1 });
  });

  it('no coordinates: at the last fix, not valid; no time: timed on arrival; few satellites: not valid', () => {
    const conn = protocolState('861230043209218');
    decode(wialonPosition(fix), conn);
    const r = decode(line('#D#NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;NA;;NA;motion:3:false'), conn);
    expect(r.positions[0]).toMatchObject({ deviceTime: receivedAt, valid: false, attributes: { motion: false } });
    expect(r.positions[0]!.lat).toBeCloseTo(fix.lat, 5);
    expect(decode(line('#SD#150622;093012;5957.1234;N;03018.4567;E;54;12;21;2')).positions[0]!.valid).toBe(false);
  });

  it('an unreadable message is answered #AD#-1 and stores nothing', () => {
    expect(decode(line('#D#991399;093012;5957.1234;N;03018.4567;E;54;12;21;6;NA;NA;NA;NA;NA;NA'))).toMatchObject({ positions: [], reply: line('#AD#-1') });
  });

  it('B: the black box batch, each message archived, answered with their count', () => {
    const later = { ...fix, time: new Date(fix.time.getTime() + 60_000) };
    const r = decode(wialonBlackBox([fix, later]));
    expect(r.badChecksum).toBeUndefined();
    expect(r.reply).toEqual(line('#AB#2'));
    expect(r.positions.map((p) => [p.deviceTime, p.attributes.archive])).toEqual([
      [fix.time, true],
      [later.time, true],
    ]);
    expect(decode(wialonBlackBox([fix], '1.1')).reply).toEqual(line('#AB#1'));
  });

  it('an IMEI in front of the packet identifies the unit', () => {
    expect(decode(line('2.0;861230043209219#SD#150622;093012;5957.1234;N;03018.4567;E;54;12;21;6'), protocolState()).identity).toBe('861230043209219');
  });

  it('M: a driver message answers a command, stored at the last fix, answered #AM#1', () => {
    const r = decode(wialonMessage('reboot ok'));
    expect(r).toMatchObject({ commandReply: 'reboot ok', reply: line('#AM#1'), positions: [{ valid: false, attributes: { result: 'reboot ok' } }] });
  });
});

describe('Wialon IPS framing', () => {
  const a = wialonLogin('861230043209218');
  const b = wialonPosition(fix, { ignition: true });

  it('a line cut at every byte comes out whole once', () => {
    for (let cut = 1; cut < b.length; cut++) {
      const framer = wialon.createFramer(65536);
      expect([...framer.push(b.subarray(0, cut)), ...framer.push(b.subarray(cut))]).toEqual([b]);
    }
  });

  it('two packets in one read; garbage before them skipped and counted; overlong lines dropped', () => {
    const framer = wialon.createFramer(65536);
    expect(framer.push(Buffer.concat([Buffer.from('xyz'), a, b]))).toEqual([a, b]);
    expect(framer.skipped).toBe(3);
    const small = wialon.createFramer(40);
    expect(small.push(Buffer.concat([b, wialonPing()]))).toEqual([wialonPing()]);
  });
});

describe('Wialon IPS commands', () => {
  it('reboot and custom text as lines; no locate', () => {
    expect(encodeCommand('wialon', 'reboot', 1)).toEqual(line('reboot'));
    expect(encodeCommand('wialon', 'custom', 1, { text: 'L1=1' })).toEqual(line('L1=1'));
    expect(encodeCommand('wialon', 'locate', 1)).toBeNull();
  });
});
