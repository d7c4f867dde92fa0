// The protocol registry and the settings agree: every TCP protocol the tracker speaks has its own
// port setting (Traccar's port by default), and no setting names a protocol it does not speak.
import { describe, expect, test } from '@jest/globals';
import { parseTrackerConfig, PROTOCOL_PORTS, portSetting } from '../../../shared/config.js';
import { PROTOCOLS } from '../../../tracker/protocols/registry.js';
import { gt06Login } from '../../../tracker/simulator/frames/gt06.js';
import { h02Position } from '../../../tracker/simulator/frames/h02.js';
import { jt808Register } from '../../../tracker/simulator/frames/jt808.js';
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
  const fix = { time: new Date('2024-01-02T03:04:05Z'), lat: 1, lng: 2, speed: 3, heading: 4 };
  /** Each protocol's first frame on a connection. */
  const FIRST: Record<string, Buffer> = {
    gt06: gt06Login('123456789012345'),
    teltonika: teltonikaHandshake('123456789012345'),
    h02: h02Position('7712340001', fix),
    jt808: jt808Register('864507033191520'),
  };

  test.each(Object.entries(FIRST))("%s's first frame is claimed by its own detector only", (name, first) => {
    expect(PROTOCOLS.filter((p) => p.detect(first)).map((p) => p.name)).toEqual([name]);
  });
});
