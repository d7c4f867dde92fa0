import { describe, expect, it } from '@jest/globals';
import { decodeH02 } from '../../../tracker/protocols/h02/decoder.js';
import { h02 } from '../../../tracker/protocols/h02/index.js';
import {
  h02Alarm,
  h02Binary,
  h02CellReport,
  h02CommandReply,
  h02Heartbeat,
  h02Position,
  h02Status,
} from '../../../tracker/simulator/frames/h02.js';
import { protocolState } from './helpers.js';

const text = (s: string) => Buffer.from(s, 'latin1');
const fix = { time: new Date('2023-11-02T08:09:10Z'), lat: -23.5505, lng: -46.6333, speed: 46.3, heading: 95 };
/** When the server got the message: stamps the confirmations and times reports that carry no time. */
const receivedAt = new Date('2024-03-05T06:07:08.900Z');

describe('H02 text messages', () => {
  it('V1 position as in the protocol document', () => {
    const r = decodeH02(
      text('*HQ,865205030330012,V1,145452,A,2240.55181,N,11358.32389,E,0.00,0,100815,FFFFFBFF#'),
      protocolState(),
      receivedAt,
    );
    expect(r.identity).toBe('865205030330012');
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2015-08-10T14:54:52.000Z');
    expect(p.valid).toBe(true);
    expect(p.lat).toBeCloseTo(22.6758635, 6);
    expect(p.lng).toBeCloseTo(113.9720648, 6);
    expect(p.speed).toBe(0);
    expect(p.attributes.ignition).toBe(false);
    expect(p.attributes.alarm).toBeUndefined();
    // V1 reports are confirmed with a V4,V1 answer carrying the server's time.
    expect(r.reply?.toString()).toBe('*HQ,865205030330012,V4,V1,20240305060708#');
  });

  it('the confirmation starts *HQ whatever maker code the unit uses; a unit without an id gets none', () => {
    const th = decodeH02(text('*TH,2020916012,V1,050316,A,2212.8745,N,11346.6574,E,14.28,028,220902,FFFFFBFF#'), protocolState(), receivedAt);
    expect(th.positions[0]!.deviceTime.toISOString()).toBe('2002-09-22T05:03:16.000Z');
    expect(th.reply?.toString()).toBe('*HQ,2020916012,V4,V1,20240305060708#');
    const anonymous = decodeH02(text('*HQ,,V1,173212,A,2225.78879,S,02829.19021,E,0.00,0,290418,FFFFFBFF#'), protocolState('4210058003'), receivedAt);
    expect(anonymous.positions[0]!.lat).toBeCloseTo(-22.429813, 6);
    expect(anonymous.identity).toBeUndefined();
    expect(anonymous.reply).toBeUndefined();
  });

  it('a V1 with empty time and date (no clock yet) is timed on arrival, and confirmed', () => {
    const r = decodeH02(text('*HQ,353505220873067,V1,,V,4605.75732,N,01430.73863,E,0.00,0,,FFFFFFEF#'), protocolState(), receivedAt);
    const p = r.positions[0]!;
    expect(p.deviceTime).toEqual(receivedAt);
    expect(p.valid).toBe(false);
    expect(p.lat).toBeCloseTo(46.095955, 6);
    expect(p.lng).toBeCloseTo(14.51231, 5);
    expect(p.attributes.ignition).toBe(true);
    expect(p.attributes.alarm).toBeUndefined();
    expect(r.reply?.toString()).toBe('*HQ,353505220873067,V4,V1,20240305060708#');
    // Only both empty: a time without a date stays unusable.
    expect(decodeH02(text('*HQ,353505220873067,V1,101010,V,4605.75732,N,01430.73863,E,0.00,0,,FFFFFFEF#'), protocolState(), receivedAt).positions).toHaveLength(0);
  });

  it('speed in knots is converted to km/h; southern/western hemispheres', () => {
    const r = h02.decode(h02Position('7712340002', fix, { ignition: true }), protocolState());
    const p = r.positions[0]!;
    expect(p.lat).toBeCloseTo(-23.5505, 5);
    expect(p.lng).toBeCloseTo(-46.6333, 5);
    expect(p.speed).toBeCloseTo(46.3, 1);
    expect(p.heading).toBe(95);
    expect(p.attributes.ignition).toBe(true);
    expect(p.deviceTime.toISOString()).toBe('2023-11-02T08:09:10.000Z');
  });

  it('invalid fix (V) is decoded but flagged', () => {
    expect(h02.decode(h02Position('1', { ...fix, valid: false }), protocolState()).positions[0]!.valid).toBe(false);
  });

  it.each(['sos', 'powerCut', 'overspeed', 'vibration'] as const)('active-low status bit: %s', (alarm) => {
    const p = h02.decode(h02Alarm('7712340002', fix, alarm), protocolState()).positions[0]!;
    expect(p.attributes.alarm).toBe(alarm);
  });

  it('status word helper clears the documented bits', () => {
    expect(h02Status({ ignition: true })).toBe(0xffffffff);
    expect(h02Status({ alarm: 'sos', ignition: true })).toBe(0xfffffffd);
    expect(h02Status({ alarm: 'powerCut', ignition: false })).toBe(0xfff7fbff);
  });

  it('HTBT heartbeat is echoed and reports the battery level (%)', () => {
    const r = h02.decode(h02Heartbeat('864502031234567', 80), protocolState());
    expect(r.heartbeat).toBe(true);
    expect(r.identity).toBe('864502031234567');
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toEqual({ batteryLevel: 80 });
    expect(r.reply?.toString()).toBe('*HQ,864502031234567,HTBT#');
    // Without a battery field, or with one out of range, nothing is said of the battery.
    expect(h02.decode(text('*HQ,864502031234567,HTBT#'), protocolState()).attributes).toBeUndefined();
    expect(h02.decode(text('*HQ,864502031234567,HTBT,250#'), protocolState()).attributes).toBeUndefined();
  });

  it('V0 heartbeat is echoed as the unit sent it', () => {
    const r = h02.decode(text('*hq,864502031234567,V0#'), protocolState());
    expect(r).toMatchObject({ heartbeat: true, positions: [] });
    expect(r.reply?.toString()).toBe('*hq,864502031234567,V0#');
  });

  it('LINK reports its status word: an SOS without a fix, and the battery', () => {
    const link = h02.decode(text('*HQ,7712340003,LINK,101500,20,7,90,1200,3,010224,FFFFFBFD#'), protocolState());
    expect(link.positions).toHaveLength(0);
    expect(link.attributes).toMatchObject({ alarm: 'sos', ignition: false, batteryLevel: 90 });
    expect(h02.decode(text('*HQ,7712340003,LINK,101500,20,7,90,1200,3,010224,FFFFFBFF#'), protocolState()).attributes).toEqual({ ignition: false, io: { status: 0xfffffbff }, batteryLevel: 90 });
    expect(h02.decode(text('*HQ,7712340003,XT,1,100#'), protocolState()).attributes).toBeUndefined();
  });

  it('XT and LINK are heartbeats without a reply', () => {
    for (const msg of ['*HQ,7712340003,XT,1,100#', '*HQ,7712340003,LINK,101500,20,7,90,1200,3,010224,FFFFFBFF#']) {
      const r = h02.decode(text(msg), protocolState());
      expect(r.heartbeat).toBe(true);
      expect(r.positions).toHaveLength(0);
      expect(r.reply).toBeUndefined();
    }
  });

  it('V4 command confirmation gives the reply text and the position', () => {
    const r = h02.decode(h02CommandReply('7712340002', 'S20', ['DONE'], fix), protocolState());
    expect(r.commandReply).toBe('S20,DONE');
    expect(r.positions[0]!.lat).toBeCloseTo(-23.5505, 5);
    expect(r.reply).toBeUndefined();
  });

  it('V4 without a position block still yields the reply', () => {
    const r = h02.decode(text('*HQ,7712340002,V4,D1,30,1#'), protocolState());
    expect(r.commandReply).toBe('D1,30,1');
    expect(r.positions).toHaveLength(0);
  });

  it('SMS answers are command replies', () => {
    expect(h02.decode(text('*HQ,7712340003,SMS,VERSION:1.2#'), protocolState()).commandReply).toBe('VERSION:1.2');
  });

  it('garbage text is rejected without throwing', () => {
    for (const msg of ['*#', '*HQ#', '*HQ,1,V1,xx#', '*HQ,1,V1,101010,A,99,N,1,E,0,0,010101#', 'HQ,1,V1#']) {
      expect(h02.decode(text(msg), protocolState()).positions).toHaveLength(0);
    }
  });
});

describe('H02 cell reports (no fix)', () => {
  const cells = [
    { lac: 431, cid: 17003, signal: 26 },
    { lac: 431, cid: 11101, signal: 13 },
  ];

  it('NBR is stored unlocated with its cells and status word, and confirmed', () => {
    const frame = h02CellReport('1600068812', new Date('2024-02-01T14:13:35Z'), { mcc: 262, mnc: 2 }, cells, { alarm: 'sos' });
    const r = decodeH02(frame, protocolState(), receivedAt);
    expect(r.positions).toHaveLength(1);
    const p = r.positions[0]!;
    expect(p).toMatchObject({ valid: false, lat: 0, lng: 0, speed: 0 });
    expect(p.deviceTime.toISOString()).toBe('2024-02-01T14:13:35.000Z');
    expect(p.attributes.alarm).toBe('sos');
    expect(p.attributes.ignition).toBe(false);
    expect(p.attributes.network).toEqual({
      cellTowers: [
        { mobileCountryCode: 262, mobileNetworkCode: 2, locationAreaCode: 431, cellId: 17003, signalStrength: 26 },
        { mobileCountryCode: 262, mobileNetworkCode: 2, locationAreaCode: 431, cellId: 11101, signalStrength: 13 },
      ],
    });
    expect(r.reply?.toString()).toBe('*HQ,1600068812,V4,NBR,20240305060708#');
  });

  it('NBR with fields after the status word, and negative signals in dBm', () => {
    const r = decodeH02(text('*HQ,7401004662,NBR,160453,234,10,0,2,21580,27766,-67,21580,27767,-71,291019,FFFFFBFF,6#'), protocolState(), receivedAt);
    expect(r.positions[0]!.deviceTime.toISOString()).toBe('2019-10-29T16:04:53.000Z');
    expect(r.positions[0]!.attributes.network?.cellTowers?.map((c) => c.signalStrength)).toEqual([-67, -71]);
  });

  it('NBR with an impossible time keeps its status and cells without a position, and is still confirmed', () => {
    const r = decodeH02(text('*HQ,1400046168,NBR,160169,460,0,1,1,9338,3692,150,180813,FFFFFBFD#'), protocolState(), receivedAt);
    expect(r.positions).toHaveLength(0);
    expect(r.attributes).toMatchObject({ alarm: 'sos', network: { cellTowers: [{ mobileCountryCode: 460, locationAreaCode: 9338, cellId: 3692 }] } });
    expect(r.reply?.toString()).toBe('*HQ,1400046168,V4,NBR,20240305060708#');
  });

  it('V3 (operator code as MCC+MNC, four fields a cell) is stored unlocated with its cells; no reply', () => {
    const r = decodeH02(text('*HQ,355488020533263,V3,121536,65501,02,000152,014001,156,-64,000161,010642,138,,0292,0,X,090517,FFFFFBFF#'), protocolState(), receivedAt);
    const p = r.positions[0]!;
    expect(p.valid).toBe(false);
    expect(p.deviceTime.toISOString()).toBe('2017-05-09T12:15:36.000Z');
    expect(p.attributes.network?.cellTowers).toEqual([
      { mobileCountryCode: 655, mobileNetworkCode: 1, locationAreaCode: 152, cellId: 14001 },
      { mobileCountryCode: 655, mobileNetworkCode: 1, locationAreaCode: 161, cellId: 10642 },
    ]);
    expect(p.attributes.io).toMatchObject({ battery: 0x292, status: 0xfffffbff });
    expect(r.reply).toBeUndefined();
  });

  it('VP1 without a fix (cells separated by Y, no time) is timed on arrival', () => {
    const r = decodeH02(text('*hq,356327081001239,VP1,V,470,002,92,3565,0Y92,19433,30Y92,1340,29#'), protocolState(), receivedAt);
    const p = r.positions[0]!;
    expect(p).toMatchObject({ valid: false, lat: 0, lng: 0, deviceTime: receivedAt });
    expect(p.attributes.network?.cellTowers?.map((c) => [c.mobileCountryCode, c.mobileNetworkCode, c.locationAreaCode, c.cellId, c.signalStrength])).toEqual([
      [470, 2, 92, 3565, 0],
      [470, 2, 92, 19433, 30],
      [470, 2, 92, 1340, 29],
    ]);
  });

  it('a cell report with a malformed cell is only a sign of life', () => {
    for (const msg of ['*HQ,1600068812,NBR,141335,262,02,255,1,431,,26,010224,FFFFFBFF#', '*hq,356327081001239,VP1,V,470,002,92,3565#']) {
      const r = decodeH02(text(msg), protocolState(), receivedAt);
      expect([msg, r.positions.length, r.attributes, r.heartbeat]).toEqual([msg, 0, undefined, true]);
    }
  });
});

describe('H02 binary messages', () => {
  it('32-byte report from the simulator', () => {
    const frame = h02Binary('7712340001', fix, { alarm: 'sos', batteryLevel: 100 });
    expect(frame).toHaveLength(32);
    const r = h02.decode(frame, protocolState());
    expect(r.identity).toBe('7712340001');
    const p = r.positions[0]!;
    expect(p.deviceTime.toISOString()).toBe('2023-11-02T08:09:10.000Z');
    expect(p.lat).toBeCloseTo(-23.5505, 4);
    expect(p.lng).toBeCloseTo(-46.6333, 4);
    expect(p.speed).toBeCloseTo(25 * 1.852, 6);
    expect(p.heading).toBe(95);
    expect(p.valid).toBe(true);
    expect(p.attributes.alarm).toBe('sos');
    expect(p.attributes.batteryLevel).toBe(100);
  });

  it('non-BCD content is rejected', () => {
    const frame = h02Binary('7712340001', fix);
    frame[8] = 0xab;
    expect(h02.decode(frame, protocolState()).positions).toHaveLength(0);
  });
});

describe('H02 locate', () => {
  it('has no single-position command', () => {
    expect(h02.commands.locate).toBeUndefined();
  });
});
