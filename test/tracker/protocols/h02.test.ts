import { describe, expect, it } from '@jest/globals';
import { h02 } from '../../../tracker/protocols/h02/index.js';
import {
  h02Alarm,
  h02Binary,
  h02CommandReply,
  h02Heartbeat,
  h02Position,
  h02Status,
} from '../../../tracker/simulator/frames/h02.js';
import { protocolState } from './helpers.js';

const text = (s: string) => Buffer.from(s, 'latin1');
const fix = { time: new Date('2023-11-02T08:09:10Z'), lat: -23.5505, lng: -46.6333, speed: 46.3, heading: 95 };

describe('H02 text messages', () => {
  it('V1 position as in the protocol document', () => {
    const r = h02.decode(
      text('*HQ,865205030330012,V1,145452,A,2240.55181,N,11358.32389,E,0.00,0,100815,FFFFFBFF#'),
      protocolState(),
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
    // V1 reports are confirmed with a V4,V1 answer.
    expect(r.reply?.toString()).toBe('*HQ,865205030330012,V4,V1,20150810145452#');
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

  it('HTBT heartbeat is echoed', () => {
    const r = h02.decode(h02Heartbeat('864502031234567', 80), protocolState());
    expect(r.heartbeat).toBe(true);
    expect(r.identity).toBe('864502031234567');
    expect(r.reply?.toString()).toBe('*HQ,864502031234567,HTBT#');
  });

  it('LINK and NBR report their status word: an SOS without a fix, and the battery', () => {
    const link = h02.decode(text('*HQ,7712340003,LINK,101500,20,7,90,1200,3,010224,FFFFFBFD#'), protocolState());
    expect(link.positions).toHaveLength(0);
    expect(link.attributes).toMatchObject({ alarm: 'sos', ignition: false, batteryLevel: 90 });
    const nbr = h02.decode(text('*HQ,7712340003,NBR,120000,460,0,1,1,9338,3692,150,150918,FFFBFBFF#'), protocolState());
    expect(nbr.attributes).toMatchObject({ alarm: 'sos' });
    expect(h02.decode(text('*HQ,7712340003,LINK,101500,20,7,90,1200,3,010224,FFFFFBFF#'), protocolState()).attributes).toEqual({ ignition: false, io: { status: 0xfffffbff }, batteryLevel: 90 });
    expect(h02.decode(text('*HQ,7712340003,XT,1,100#'), protocolState()).attributes).toBeUndefined();
  });

  it('XT, LINK and NBR are heartbeats without a reply', () => {
    for (const msg of [
      '*HQ,7712340003,XT,1,100#',
      '*HQ,7712340003,LINK,101500,20,7,90,1200,3,010224,FFFFFBFF#',
      '*HQ,7712340003,NBR,120000,460,0,1,1,9338,3692,150,150918,FFFFFBFF#',
    ]) {
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
