// The protocol registry and the settings agree: every TCP protocol the tracker speaks has its own
// port setting (Traccar's port by default), and no setting names a protocol it does not speak.
import { describe, expect, test } from '@jest/globals';
import { parseTrackerConfig, PROTOCOL_PORTS, portSetting } from '../../../shared/config.js';
import { PROTOCOLS } from '../../../tracker/protocols/registry.js';
import { gt06Login } from '../../../tracker/simulator/frames/gt06.js';
import { h02Binary, h02Position } from '../../../tracker/simulator/frames/h02.js';
import { meitrackHeartbeat, meitrackPosition } from '../../../tracker/simulator/frames/meitrack.js';
import { suntechHeartbeat, suntechPosition } from '../../../tracker/simulator/frames/suntech.js';
import { teltonikaHandshake } from '../../../tracker/simulator/frames/teltonika.js';

describe('protocol ports', () => {
  test('each TCP protocol has exactly one port setting, and each setting a protocol', () => {
    expect(Object.keys(PROTOCOL_PORTS).sort()).toEqual(PROTOCOLS.map((p) => p.name).sort());
  });

  test("a protocol's port defaults to Traccar's and 0 turns it off", () => {
    const defaults = parseTrackerConfig({}) as unknown as Record<string, number>;
    for (const [name, port] of Object.entries(PROTOCOL_PORTS)) expect([name, defaults[portSetting(name)]]).toEqual([name, port]);
    const off = parseTrackerConfig({ GT06_PORT: '0' }) as unknown as Record<string, number>;
    expect(off.GT06_PORT).toBe(0);
    expect(() => parseTrackerConfig({ H02_PORT: '70000' })).toThrow(/H02_PORT/);
  });
});

describe('autodetect on the shared device port', () => {
  const fix = { time: new Date('2024-02-03T04:05:06Z'), lat: 48.8584, lng: 2.2945, speed: 12, heading: 33 };
  const firstFrames: [string, Buffer][] = [
    ['gt06', gt06Login('864502031234567')],
    ['teltonika', teltonikaHandshake('864502031234567')],
    ['h02', h02Position('7712340001', fix)],
    ['h02', h02Binary('7712340001', fix)],
    ['suntech', suntechPosition('0912345678', fix)],
    ['suntech', suntechHeartbeat('0912345678')],
    ['suntech', Buffer.from('ST300STT;812345678;04;408;20240311;09:15:30;1a2b3;', 'latin1')],
    ['meitrack', meitrackPosition('861234567890123', fix)],
    ['meitrack', meitrackHeartbeat('861234567890123')],
  ];

  test.each(firstFrames)('%s: its first frame picks it, and no detector asked before it claims the frame', (name, frame) => {
    expect(PROTOCOLS.find((p) => p.detect(frame))?.name).toBe(name);
    // H02 accepts any '$', so a Meitrack frame also satisfies it: Meitrack is asked first.
    const others = PROTOCOLS.filter((p) => p.name !== name && p.detect(frame)).map((p) => p.name);
    expect(others).toEqual(name === 'meitrack' ? ['h02'] : []);
  });
});
