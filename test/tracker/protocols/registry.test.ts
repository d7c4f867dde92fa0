// The protocol registry and the settings agree: every TCP protocol the tracker speaks has its own
// port setting (Traccar's port by default), and no setting names a protocol it does not speak.
import { describe, expect, test } from '@jest/globals';
import { parseTrackerConfig, PROTOCOL_PORTS, portSetting } from '../../../shared/config.js';
import { PROTOCOLS } from '../../../tracker/protocols/registry.js';
import { gps103Handshake, gps103Heartbeat, gps103Position } from '../../../tracker/simulator/frames/gps103.js';
import { gt06Login } from '../../../tracker/simulator/frames/gt06.js';
import { h02Binary, h02Position } from '../../../tracker/simulator/frames/h02.js';
import { teltonikaHandshake } from '../../../tracker/simulator/frames/teltonika.js';
import { tk103Handshake, tk103Login, tk103Position } from '../../../tracker/simulator/frames/tk103.js';

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
  const firstFrames: Record<string, Buffer[]> = {
    gt06: [gt06Login('864502031234567')],
    teltonika: [teltonikaHandshake('864502031234567')],
    h02: [h02Position('7712340001', fix), h02Binary('7712340001', fix)],
    gps103: [gps103Handshake('864502031234567'), gps103Heartbeat('864502031234567'), gps103Position('864502031234567', fix)],
    tk103: [tk103Handshake('013912345678'), tk103Login('013912345678', '359710012345678', fix), tk103Position('013912345678', fix)],
  };

  test.each(Object.entries(firstFrames))("%s's first frames are claimed by its detector alone", (name, frames) => {
    for (const frame of frames) expect([name, PROTOCOLS.filter((p) => p.detect(frame)).map((p) => p.name)]).toEqual([name, [name]]);
  });
});
