// The protocol registry and the settings agree: every TCP protocol the tracker speaks has its own
// port setting (Traccar's port by default), and no setting names a protocol it does not speak.
import { describe, expect, test } from '@jest/globals';
import { parseTrackerConfig, PROTOCOL_PORTS, portSetting } from '../../../shared/config.js';
import { PROTOCOLS } from '../../../tracker/protocols/registry.js';

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
