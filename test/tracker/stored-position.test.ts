// Speed and heading are brought to the form their `real` columns keep, so every response shows the
// same number: checked against PostgreSQL itself.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { asReal } from '../../tracker/positions/stored.js';
import type { Db } from '../../tracker/storage/db.js';
import { openTestDb } from '../helpers/databases.js';

let db: Db;
let close: () => Promise<void>;
beforeAll(async () => ({ db, close } = await openTestDb('postgres')));
afterAll(() => close());

test.each([
  [24.076000000000001, 24.076],
  [96.10000000000002, 96.1],
  [19.44 * 1.852, 36.00288],
  [0, 0],
  [359.9, 359.9],
  [0.001, 0.001],
  [123456.789, 123456.79],
  [338.078125, 338.07812], // an exact tie: to the even digit, as PostgreSQL does
  [344.015625, 344.01562],
])('%p is kept as %p', (x, stored) => expect(asReal(x)).toBe(stored));

test('speeds and headings read back from a real column as asReal gives them', async () => {
  // Random ones, knots converted to km/h, and every 1/128 of a degree (exact binary fractions, full of ties).
  const values = [
    ...Array.from({ length: 10_000 }, (_, i) => (i % 2 ? Math.random() * 360 : (Math.round(Math.random() * 3000) / 10) * 1.852)),
    ...Array.from({ length: 360 * 128 }, (_, k) => k / 128),
  ];
  const rows = await db.query<{ t: string }>('SELECT x::real::text AS t FROM unnest($1::float8[]) WITH ORDINALITY AS u(x, n) ORDER BY n', [values]);
  const mismatches = values.filter((x, i) => asReal(x) !== Number(rows[i]!.t));
  expect(mismatches).toEqual([]);
});
