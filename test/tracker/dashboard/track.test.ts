// Loading a track: only the device's valid fixes in the period, oldest first, thinned evenly to at
// most the given number of points while keeping the first and the last.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { generateKeyPairSync } from 'node:crypto';
import { parseConfig } from '../../../shared/config.js';
import { runVerb } from '../../../tracker/admin/verbs.js';
import { loadTrack } from '../../../tracker/dashboard/track.js';
import { insertPositions } from '../../../tracker/positions/repository.js';
import type { Db } from '../../../tracker/storage/db.js';
import { ENGINES, openTestDb } from '../../helpers/databases.js';

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const START = Date.UTC(2026, 10, 1, 0, 0, 0);
const fix = (i: number, valid = true) => ({ deviceTime: new Date(START + i * 10_000), valid, lat: 50 + i / 1e5, lng: 8 + i / 1e5, speed: 40, heading: 0, attributes: {} });

describe.each(ENGINES)('loadTrack on %s', (engine) => {
  let db: Db;
  let close: () => Promise<void>;
  let device: string;
  let other: string;

  beforeAll(async () => {
    ({ db, close } = await openTestDb(engine));
    const ctx = { db, privateKey, config: parseConfig({}) };
    const account = ((await runVerb(ctx, 'accounts create', { name: 'Fleet' })) as { id: string }).id;
    device = ((await runVerb(ctx, 'devices add', { account, imei: '359633100008001', name: 'A' })) as { id: string }).id;
    other = ((await runVerb(ctx, 'devices add', { account, imei: '359633100008002', name: 'B' })) as { id: string }).id;
    // 5,000 valid fixes every 20 s, an invalid one between the first two, and another device's fixes.
    await insertPositions(db, Array.from({ length: 5000 }, (_, i) => ({ deviceId: device, position: fix(i * 2) })));
    await insertPositions(db, [{ deviceId: device, position: { ...fix(1, false), lat: 0, lng: 0 } }]);
    await insertPositions(db, Array.from({ length: 10 }, (_, i) => ({ deviceId: other, position: fix(i * 2) })));
  }, 60_000);
  afterAll(() => close());

  test('a short period comes whole, oldest first, without invalid fixes or other devices', async () => {
    const { total, points } = await loadTrack(db, device, new Date(START), new Date(START + 10 * 20_000));
    expect(total).toBe(11);
    expect(points).toHaveLength(11);
    expect(points.map((p) => p.time.getTime())).toEqual(Array.from({ length: 11 }, (_, i) => START + i * 20_000));
    expect(points.some((p) => p.lat === 0)).toBe(false);
  });

  test('a long period is thinned evenly to the limit, keeping the first and the last fix', async () => {
    const { total, points } = await loadTrack(db, device, new Date(START), new Date(START + 2 * 86_400_000), 1000);
    expect(total).toBe(5000);
    expect(points.length).toBeLessThanOrEqual(1001);
    expect(points.length).toBeGreaterThanOrEqual(1000);
    expect(points[0]!.time.getTime()).toBe(START);
    expect(points.at(-1)!.time.getTime()).toBe(START + 4999 * 20_000);
    const gaps = new Set(points.slice(1, -1).map((p, i) => p.time.getTime() - points[i]!.time.getTime()));
    expect([...gaps]).toEqual([5 * 20_000]);
  });

  test('an empty period has no points', async () => {
    expect(await loadTrack(db, device, new Date(START - 86_400_000), new Date(START - 1))).toEqual({ total: 0, points: [] });
  });
});
