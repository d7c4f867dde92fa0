// The telemetry vocabulary's table against its derived parts: every key declares its unit (or that
// it has none), the TypeScript type and the runtime table name the same keys with the same types,
// the zod schema refuses unknown keys and wrong types, Traccar's units convert by the table's
// factor, and docs/telemetry.md documents every key with its unit.
import { describe, expect, test } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ALARMS, addAlarm, alarmsOf, closestTelemetryKey, fromTraccar, isTelemetry, TELEMETRY, TELEMETRY_FAMILIES, telemetrySchema, type Telemetry, type TelemetryKey } from '../../tracker/positions/telemetry.js';

/**
 * One value of every fixed key, typed by the TypeScript type: leaving a table key out, or giving it
 * a value of another type, fails to compile; a key the table lacks fails the runtime comparison.
 */
const EVERY_KEY: Required<Pick<Telemetry, TelemetryKey>> = {
  ignition: true, motion: false, odometer: 1234.5, tripOdometer: 12, engineHours: 3600, fuel: 41.5, fuelLevel: 60, fuelUsed: 2.5,
  battery: 4.1, batteryLevel: 80, power: 12.6, charge: true, rssi: 4, hdop: 0.9, pdop: 1.4, accuracy: 5, alarm: 'powerCut,sos',
  driverUniqueId: '01a2b3c4', input: 5, output: 2, door: false, blocked: false, armed: true, rpm: 2100, obdSpeed: 54, coolantTemp: 88,
  throttle: 30, engineLoad: 45, vin: 'WVWZZZ1JZXW000001', iccid: '8944500102198304826', priority: 1, event: 11, archive: false, result: 'OK', computed: 'odometer',
  network: { radioType: 'lte', cellTowers: [{ cellId: 7603371, locationAreaCode: 20161, mobileCountryCode: 246, mobileNetworkCode: 2 }], wifiAccessPoints: [{ macAddress: '00:1a:2b:3c:4d:5e', signalStrength: -61 }] },
};
const WRONG: Record<string, unknown> = { boolean: 1, number: 'x', integer: 1.5, string: 7, alarm: 'panic', code: true, network: { cellTowers: [{ cellId: 'x' }] } };
const DOCS = readFileSync(new URL('../../docs/telemetry.md', import.meta.url), 'utf8');

describe('the table', () => {
  test('every key declares a unit, or null for a value without one, and a description', () => {
    for (const [key, e] of [...Object.entries(TELEMETRY), ...Object.entries(TELEMETRY_FAMILIES)]) {
      expect([key, Object.hasOwn(e, 'unit') && (e.unit === null || e.unit.length > 0)]).toEqual([key, true]);
      expect(e.description.length).toBeGreaterThan(5);
    }
  });

  test('the TypeScript type and the runtime table have the same keys, and the schema takes a value of every one', () => {
    expect(Object.keys(EVERY_KEY).sort()).toEqual(Object.keys(TELEMETRY).sort());
    expect(telemetrySchema.safeParse({ ...EVERY_KEY, temp1: -4.5, adc2: 3.3, in1: true, out3: false, io: { 385: 'ff', x: 1, y: true } }).success).toBe(true);
  });

  test('a value of another type than the table says is refused, key by key', () => {
    for (const [key, e] of Object.entries(TELEMETRY)) expect([key, telemetrySchema.safeParse({ [key]: WRONG[e.type] }).success]).toEqual([key, false]);
    for (const [family, e] of Object.entries(TELEMETRY_FAMILIES)) expect([family, telemetrySchema.safeParse({ [`${family}2`]: WRONG[e.type] }).success]).toEqual([family, false]);
  });

  test('network data: cells and access points in Traccar\'s shape are taken, anything else is refused', () => {
    const network = { cellTowers: [{ mobileCountryCode: 460, mobileNetworkCode: 0, locationAreaCode: 10365, cellId: 8120, signalStrength: -60 }], wifiAccessPoints: [{ macAddress: 'a4:2b:b0:01:02:03' }] };
    expect(telemetrySchema.safeParse({ network }).success).toBe(true);
    for (const bad of [{ cells: [] }, { wifiAccessPoints: [{ macAddress: 'A42BB0010203' }] }, { cellTowers: [{ mobileCountryCode: 460 }] }]) {
      expect([bad, telemetrySchema.safeParse({ network: bad }).success]).toEqual([bad, false]);
    }
  });

  test('an unknown key, a non-finite number and a nested io value are refused', () => {
    for (const bad of [{ fule: 40 }, { hours: 10 }, { temp: 4 }, { power: Infinity }, { fuel: Number.NaN }, { io: { a: { b: 1 } } }]) {
      expect([bad, telemetrySchema.safeParse(bad).success]).toEqual([bad, false]);
    }
  });

  test("Traccar's keys convert by the table's factor; other clients' keys are not vocabulary", () => {
    expect(TELEMETRY.engineHours.traccar).toEqual({ key: 'hours', factor: 0.001 });
    expect(fromTraccar('hours', 7_200_000)).toEqual(['engineHours', 7200]);
    expect(fromTraccar('engineHours', 7200)).toEqual(['engineHours', 7200]);
    expect(fromTraccar('temp4', 21.5)).toEqual(['temp4', 21.5]);
    expect(fromTraccar('ignition', 'maybe')).toBeNull();
    expect(fromTraccar('driver', 'abc')).toBeNull();
  });

  test('several alarms at once are one comma-separated list of known names', () => {
    const t: Telemetry = {};
    addAlarm(t, 'powerCut');
    addAlarm(t, 'sos');
    addAlarm(t, 'sos');
    expect(t.alarm).toBe('powerCut,sos');
    expect(alarmsOf(t)).toEqual(['powerCut', 'sos']);
    expect(ALARMS.every((a) => telemetrySchema.safeParse({ alarm: a }).success)).toBe(true);
    expect(telemetrySchema.safeParse({ alarm: 'sos,' }).success).toBe(false);
  });

  test('the closest key is suggested for a misspelling', () => {
    expect(['fule', 'powr', 'ignitoin', 'tmp2', 'batterylevel'].map(closestTelemetryKey)).toEqual(['fuel', 'power', 'ignition', 'temp1', 'batteryLevel']);
  });

  test('the check ingest runs on every position gives the schema\'s answer, value by value', () => {
    const cell = { cellId: 8120, locationAreaCode: 10365 };
    const values: unknown[] = [
      true, 0, -0, 1.5, -7, 2 ** 53, Number.MAX_SAFE_INTEGER, Infinity, Number.NaN, '', 'x'.repeat(64), 'x'.repeat(65), 'x'.repeat(256), 'x'.repeat(257),
      'sos', 'sos,powerCut', 'sos,', 'panic', null, [], {}, [1], { a: 1 },
      { cellTowers: [cell] }, { cellTowers: [{ ...cell, radioType: 'lte', signalStrength: -60.5, mobileCountryCode: 0, mobileNetworkCode: 2 }] },
      { cellTowers: [{ ...cell, cellId: -1 }] }, { cellTowers: [{ ...cell, cellId: 1.5 }] }, { cellTowers: [{ ...cell, extra: 1 }] }, { cellTowers: [{ cellId: 1 }] },
      { cellTowers: [{ ...cell, radioType: 'edge' }] }, { cellTowers: [{ ...cell, signalStrength: Infinity }] }, { cellTowers: Array.from({ length: 33 }, () => cell) },
      { cellTowers: Array.from({ length: 32 }, () => cell) }, { cellTowers: cell }, { radioType: 'nr' }, { radioType: 'x' }, { cells: [] },
      { wifiAccessPoints: [{ macAddress: 'a4:2b:b0:01:02:03', channel: 6, signalStrength: -70 }] }, { wifiAccessPoints: [{ macAddress: 'A4:2B:B0:01:02:03' }] },
      { wifiAccessPoints: [{ macAddress: 'a4:2b:b0:01:02:03', channel: 6.5 }] }, { wifiAccessPoints: [{}] }, { wifiAccessPoints: [null] },
      { '385': 'ff', x: 1, y: true }, { a: { b: 1 } }, { a: Infinity }, { ['k'.repeat(65)]: 1 }, { a: 'v'.repeat(4097) },
    ];
    const keys = [...Object.keys(TELEMETRY), 'temp2', 'adc1', 'in3', 'out12', 'io', 'temp', 'fule'];
    for (const key of keys) {
      for (const value of values) {
        const attributes = { [key]: value };
        expect([key, value, isTelemetry(attributes)]).toEqual([key, value, telemetrySchema.safeParse(attributes).success]);
      }
    }
  });

  test('the JSON Schema carries each key with its unit', () => {
    const schema = z.toJSONSchema(telemetrySchema, { io: 'input' }) as { properties: Record<string, { description?: string }> };
    expect(schema.properties.engineHours!.description).toBe('Engine running time (s)');
    expect(schema.properties.fuelLevel!.description).toMatch(/\(%\)$/);
  });
});

describe('docs/telemetry.md', () => {
  test('documents every key with its unit', () => {
    const rows = new Map([...DOCS.matchAll(/^\| `([A-Za-z]+(?:<n>)?)` \| ([^|]+) \| ([^|]*) \|/gm)].map((m) => [m[1]!, m[3]!.trim()]));
    for (const [key, e] of Object.entries(TELEMETRY)) expect([key, rows.get(key)]).toEqual([key, e.unit ?? '']);
    for (const [family, e] of Object.entries(TELEMETRY_FAMILIES)) expect([family, rows.get(`${family}<n>`)]).toEqual([family, e.unit ?? '']);
  });
});
