// Position history past one batch of the stream, on both engines: every row once, in order, each
// exactly as the database holds it; and a client that goes away stops the database's work.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import http from 'node:http';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { ENGINES } from '../helpers/databases.js';
import { assertMatchesDocument } from '../helpers/openapi.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

interface Position {
  lat: number;
  lng: number;
  speed: number;
  heading: number;
  timestamp: string;
}

const ROWS = 101_500;
const BASE = '2026-10-01T00:00:00Z';
// Rows 99,998 to 100,003 fall within one millisecond, a microsecond apart: on PGlite one batch of the
// stream (and on both, one page of 10,000) ends among them, and the next must start after the last
// row sent, not after its millisecond.
const TIME = `CASE WHEN i BETWEEN 99998 AND 100003 THEN $2::timestamptz + 99998 * interval '5 seconds' + (i - 99998) * interval '1 microsecond'
  ELSE $2::timestamptz + i * interval '5 seconds' + (i % 3) * interval '333 microseconds' END`;

/** The rows as PostgreSQL itself renders them: the oracle the streamed JSON must equal. */
const ORACLE = `SELECT lat::text AS lat, lng::text AS lng, speed::text AS speed, heading::text AS heading,
  to_char(device_time AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS timestamp
  FROM positions WHERE device_id = $1 AND device_time >= $2 AND device_time <= $3 ORDER BY device_time`;

describe.each(ENGINES)('position history on %s', (engine) => {
  let f: TrackerFixture;
  let acme: string;
  let busy: string;
  let odd: string;

  beforeAll(async () => {
    f = await startTrackerFixture(engine);
    acme = await f.account('Acme');
    busy = await f.device(acme, '359633100000301', 'Busy');
    odd = await f.device(acme, '359633100000302', 'Odd clock');
    await f.tracker.ctx.db.query(
      `INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading)
       SELECT $1, ${TIME}, true, -33.8688 - i * 1e-6, 151.2093 + i * 1.37e-7, (i % 1999) / 10.0, (i * 7 % 3600) / 10.0 FROM generate_series(0, $3 - 1) AS i`,
      [busy, BASE, ROWS],
    );
    await f.tracker.ctx.db.query(
      `INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading) VALUES
       ($1, '1999-12-31T23:59:59.999999Z', true, 0.1, -0.000001, 0, 359.9),
       ($1, '2000-01-01T00:00:00Z', true, 89.999999, -179.999999, 1234.5, 0.5),
       ($1, '2000-01-01T00:00:00.000001Z', true, -90, 180, 0.25, 1e-3)`,
      [odd],
    );
  });
  afterAll(() => f.close());

  /** A history request, its answer checked against the OpenAPI document. */
  const history = async (device: string, query: string) => {
    const res = await f.as(acme).get(`/api/public/v1/devices/${device}/positions?${query}`);
    expect(res.status).toBe(200);
    assertMatchesDocument('get', '/api/public/v1/devices/{id}/positions', 200, res.body);
    return res;
  };

  const oracle = async (device: string, from: string, to: string): Promise<Position[]> =>
    (await f.tracker.ctx.db.query<Record<keyof Position, string>>(ORACLE, [device, from, to])).map((r) => ({
      lat: Number(r.lat), lng: Number(r.lng), speed: Number(r.speed), heading: Number(r.heading), timestamp: r.timestamp,
    }));

  test('streams every row once, in order, each as stored', async () => {
    const from = BASE;
    const to = '2026-10-08T00:00:00Z';
    const res = await history(busy, `from=${from}&to=${to}`);
    const expected = await oracle(busy, from, to);
    expect(expected).toHaveLength(ROWS);
    expect(res.body.data).toHaveLength(ROWS);
    expect(res.body.data).toEqual(expected);
  });

  test('pages of 10,000 with cursors give the same rows', async () => {
    const from = BASE;
    const to = '2026-10-08T00:00:00Z';
    const seen: Position[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages < 20; pages++) {
      const res = await history(busy, `from=${from}&to=${to}&limit=10000${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...(res.body.data as Position[]));
      cursor = res.body.nextCursor as string | null;
      if (cursor === null) break;
    }
    expect(cursor).toBeNull();
    expect(seen).toEqual(await oracle(busy, from, to));
  });

  test('times around 2000-01-01 and numbers at their limits read as stored', async () => {
    const res = await history(odd, 'from=1999-12-01T00:00:00Z&to=2000-01-15T00:00:00Z');
    expect(res.body.data).toEqual([
      { lat: 0.1, lng: -0.000001, speed: 0, heading: 359.9, timestamp: '1999-12-31T23:59:59.999Z' },
      { lat: 89.999999, lng: -179.999999, speed: 1234.5, heading: 0.5, timestamp: '2000-01-01T00:00:00.000Z' },
      { lat: -90, lng: 180, speed: 0.25, heading: 0.001, timestamp: '2000-01-01T00:00:00.000Z' },
    ]);
    const page = await history(odd, 'from=1999-12-01T00:00:00Z&to=2000-01-15T00:00:00Z&limit=2');
    const rest = await history(odd, `from=1999-12-01T00:00:00Z&to=2000-01-15T00:00:00Z&limit=2&cursor=${page.body.nextCursor}`);
    expect([...page.body.data, ...rest.body.data]).toEqual(res.body.data);
    expect(rest.body.nextCursor).toBeNull();
  });

  (engine === 'postgres' ? test : test.skip)('a client that goes away ends the COPY, and the next request is served', async () => {
    const copying = async () =>
      (await f.tracker.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE query LIKE 'COPY (SELECT lat::text%' AND state = 'active'"))[0]!.n;
    // 600,000 rows, about 60 MB of JSON: more than the sockets between here and PostgreSQL hold.
    const long = await f.device(acme, '359633100000303', 'Long');
    await f.tracker.ctx.db.query(
      `INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading)
       SELECT $1, $2::timestamptz + i * interval '5 seconds', true, 50, 10, 1, 2 FROM generate_series(0, 599999) AS i`,
      [long, BASE],
    );
    const firstChunk = await new Promise<http.ClientRequest>((resolve, reject) => {
      const req = http.get(
        `http://127.0.0.1:${f.tracker.httpPort}/api/public/v1/devices/${long}/positions?from=${BASE}&to=2026-12-01T00:00:00Z`,
        { headers: { [INTERNAL_HEADERS.secret]: f.tracker.ctx.gatewaySecret, [INTERNAL_HEADERS.accountId]: acme, [INTERNAL_HEADERS.tokenId]: 'tok_test', [INTERNAL_HEADERS.scopes]: 'read' } },
        (res) => res.once('data', () => (res.pause(), resolve(req))),
      );
      req.on('error', reject);
    });
    // Not reading holds the tracker back, and the tracker holds PostgreSQL's COPY back.
    await new Promise((r) => setTimeout(r, 300));
    expect(await copying()).toBe(1);
    firstChunk.destroy();
    for (let i = 0; i < 50 && (await copying()) > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await copying()).toBe(0);
    const again = await history(odd, 'from=1999-12-01T00:00:00Z&to=2000-01-15T00:00:00Z');
    expect(again.body.data).toHaveLength(3);
  });
});
