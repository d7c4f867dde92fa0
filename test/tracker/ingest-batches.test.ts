// Batches while the database is slow, on PostgreSQL: two are written at once, what arrives while both
// are under way waits and goes in one batch (a chain that fell behind catches up instead of queueing
// a small batch per interval), and a unit whose reports land in two batches written at once has
// them counted and stored in order. A unit whose state another tracker wrote meanwhile is counted
// on from that state, not from the one this tracker kept.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { createLogger } from '../../shared/logger.js';
import { PositionBatcher } from '../../tracker/ingest/batcher.js';
import type { DecodedPosition } from '../../tracker/protocols/types.js';
import { SEQUENCE, startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('position batches on postgres', () => {
  let f: TrackerFixture;
  let fleet: string;
  beforeAll(async () => {
    f = await startTrackerFixture('postgres');
    fleet = await f.account('Fleet');
  }, 120_000);
  afterAll(() => f.close());

  test('reports that come while the writes wait on the database go in one batch; a held-up unit is counted in order', async () => {
    const held = await f.device(fleet, '359633100009101', 'Held up');
    const others = await Promise.all(Array.from({ length: 30 }, (_, i) => f.device(fleet, `3596331000092${String(i).padStart(2, '0')}`, `Unit ${i}`)));
    const start = Math.floor(Date.now() / 1000) * 1000 - 600_000;
    const fix = (i: number): DecodedPosition => ({ deviceTime: new Date(start + i * 10_000), valid: true, lat: 38.7 + i * 0.001, lng: -9.1, speed: 40, heading: 0, attributes: {} });
    const batcher = f.tracker.ingest.deps.batcher;

    // Another session holds the unit's row, as a slow or busy database would hold the first batch.
    const blocker = new pg.Client({ connectionString: f.db.url });
    await blocker.connect();
    await blocker.query('BEGIN');
    await blocker.query('SELECT 1 FROM devices WHERE id = $1 FOR UPDATE', [held]);
    const written: Promise<void>[] = [batcher.add([{ deviceId: held, position: fix(0) }])];
    await sleep(60);
    written.push(batcher.add([{ deviceId: held, position: fix(1) }]));
    await sleep(60);
    // Twelve batch intervals' worth of reports, one add() each, while both writes wait.
    for (let i = 0; i < 30; i++) {
      written.push(batcher.add([{ deviceId: others[i]!, position: fix(i) }]));
      if (i % 10 === 0) written.push(batcher.add([{ deviceId: held, position: fix(2 + i / 10) }]));
      await sleep(8);
    }
    await blocker.query('COMMIT');
    await blocker.end();
    await Promise.all(written);

    const ids = [held, ...others];
    const [{ batches }] = (await f.tracker.ctx.db.query<{ batches: number }>('SELECT count(DISTINCT xmin::text)::int AS batches FROM positions WHERE device_id = ANY($1::text[])', [ids])) as [{ batches: number }];
    // The first two batches (the held unit's first reports), then everything that came meanwhile.
    expect(batches).toBe(3);

    const rows = await f.tracker.ctx.db.query<{ odometer: number; computed: string }>(
      `SELECT (attributes ->> 'odometer')::float8 AS odometer, attributes ->> 'computed' AS computed FROM positions WHERE device_id = $1 ORDER BY device_time`,
      [held],
    );
    expect(rows).toHaveLength(5);
    // Every report counted (none taken for a late one), the odometer rising with time.
    for (const r of rows) expect(r.computed).toContain('odometer');
    for (let i = 1; i < rows.length; i++) expect(rows[i]!.odometer).toBeGreaterThan(rows[i - 1]!.odometer);
  });

  test('a unit that reported through another tracker meanwhile is counted on from what that tracker wrote', async () => {
    const unit = await f.device(fleet, '359633100009301', 'Roaming');
    const start = Math.floor(Date.now() / 1000) * 1000 - 600_000;
    const at = (i: number, lng: number): DecodedPosition => ({ deviceTime: new Date(start + i * 60_000), valid: true, lat: 38.7, lng, speed: 40, heading: 90, attributes: {} });
    const here = f.tracker.ingest.deps.batcher;
    // Another tracker on the same database: its own batcher, with its own kept states.
    const there = new PositionBatcher(f.tracker.ctx.db, createLogger('tracker', 'silent'), null, { maxDelayMs: 5, maxRows: 2000, writers: 2, sequence: SEQUENCE });
    await here.add([{ deviceId: unit, position: at(0, -9.1) }]);
    await here.add([{ deviceId: unit, position: at(1, -9.1) }]);
    // Out 0.05° east and back through the other tracker, then here again.
    await there.add([{ deviceId: unit, position: at(2, -9.05) }]);
    await there.add([{ deviceId: unit, position: at(3, -9.1) }]);
    await here.add([{ deviceId: unit, position: at(4, -9.1) }]);

    const rows = await f.tracker.ctx.db.query<{ odometer: number }>(`SELECT (attributes ->> 'odometer')::float8 AS odometer FROM positions WHERE device_id = $1 ORDER BY device_time`, [unit]);
    const odometers = rows.map((r) => Math.round(r.odometer));
    // About 4.3 km out and 4.3 km back; the last report adds nothing (same place).
    expect(odometers[2]! - odometers[1]!).toBeGreaterThan(4000);
    expect(odometers[4]).toBe(odometers[3]);
    const [device] = await f.tracker.ctx.db.query<{ counter_odometer: number }>('SELECT counter_odometer FROM devices WHERE id = $1', [unit]);
    expect(Math.round(device!.counter_odometer)).toBe(odometers[4]);
  });
});
