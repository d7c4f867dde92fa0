// Every paged list of the public API takes back only the cursors it hands out: a crafted one (a
// year past 9999 or before 1, an impossible date, an id out of range) is a 400 {error}, never a 500.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { encodeCursor } from '../../tracker/storage/paging.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let acme: string;
let van: string;
const V1 = '/api/public/v1';

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
  acme = await f.account('Acme');
  van = await f.device(acme, '359633100000701', 'Van');
}, 120_000); // a tracker starting on a busy CI machine
afterAll(() => f.close());

const TIMES = ['+100000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', '+010000-01-01T00:00:00.000Z', '0000-01-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-11-20T24:00:00Z', '2026-11-20 10:00:00Z', '2026-11-20T10:00:00+01:00', '2026-11-20T10:00:00.1234567Z'];
const NUMBERED = ['/alerts', '/events'];
const CREATED = ['/geofences', '/drivers', '/rules', '/incidents', '/expenses', '/work-orders', '/unit-notes'];

describe('crafted cursors are refused with 400', () => {
  const cases = [
    ...NUMBERED.flatMap((path) => TIMES.map((t) => [path, encodeCursor({ t, id: 1 })])),
    ...NUMBERED.flatMap((path) => [[path, encodeCursor({ t: '2026-11-20T10:00:00.000Z', id: 1e300 })], [path, encodeCursor({ t: '2026-11-20T10:00:00.000Z', id: -1 })]]),
    ...CREATED.flatMap((path) => TIMES.map((t) => [path, encodeCursor({ t, id: 'gfn_x' })])),
    ...CREATED.map((path) => [path, encodeCursor({ t: '2026-11-20T10:00:00.000Z', id: "x' OR '1'='1" })]),
    ...TIMES.map((t) => ['/devices/{van}/positions', encodeCursor({ t })]),
  ];

  test.each(cases)('%s with cursor %s', async (path, cursor) => {
    const url = `${V1}${path.replace('{van}', van)}?limit=5&cursor=${cursor}`;
    const res = await f.as(acme).get(url);
    expect({ status: res.status, body: res.body }).toEqual({ status: 400, body: { code: 'bad_request', error: 'invalid query parameter "cursor": not a cursor this API returned' } });
  });

  test.each([...NUMBERED, ...CREATED])('%s still takes the cursors it hands out, microseconds included', async (path) => {
    const id = NUMBERED.includes(path) ? 1 : 'gfn_x';
    for (const t of ['2026-11-20T10:00:00.000Z', '2024-02-29T23:59:59.123456Z', '0001-01-01T00:00:00Z']) {
      const res = await f.as(acme).get(`${V1}${path}?limit=5&cursor=${encodeCursor({ t, id })}`);
      expect(res.status).toBe(200);
    }
  });
});
