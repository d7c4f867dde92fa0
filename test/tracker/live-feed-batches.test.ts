// The live feed's batches while the database is slow to take them: what comes in while one batch
// is written waits and goes out as the next one, so a stalled log catches up in a few statements
// (each announced once to every stream) instead of one per few milliseconds queued behind each
// other. PostgreSQL only: the stall is another session holding the log's ordering lock.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import pg from 'pg';
import { FEED_CHANNEL, FEED_LOCK } from '../../tracker/feed/entries.js';
import { gt06Login } from '../../tracker/simulator/frames/gt06.js';
import { DeviceClient } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const UNITS = 30;
let f: TrackerFixture;
const units: DeviceClient[] = [];

beforeAll(async () => {
  f = await startTrackerFixture('postgres');
}, 60_000);

afterAll(async () => {
  for (const u of units) u.close();
  await f?.close();
});

test('units coming online while the log is held are published in two batches once it is free, none lost', async () => {
  const account = await f.account('Feed fleet');
  const imeis = Array.from({ length: UNITS }, (_, i) => `35963310002${String(i).padStart(4, '0')}`);
  for (const imei of imeis) await f.device(account, imei);

  const holder = new pg.Client({ connectionString: f.db.url });
  const listener = new pg.Client({ connectionString: f.db.url });
  await Promise.all([holder.connect(), listener.connect()]);
  const announced: string[] = [];
  listener.on('notification', (n) => announced.push(n.payload!));
  await listener.query(`LISTEN ${FEED_CHANNEL}`);
  const onlineLogged = async () => (await f.tracker.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM feed_log WHERE event_type = 'device_online'"))[0]!.n;

  try {
    await holder.query('SELECT pg_advisory_lock($1)', [FEED_LOCK]);
    // One unit at a time, each announced online in its own transaction and handed to the feed apart.
    for (const imei of imeis) {
      const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
      units.push(d);
      d.send(gt06Login(imei, 1));
      await d.read(10);
      await new Promise((r) => setTimeout(r, 10));
    }
    expect(await onlineLogged()).toBe(0);
    await holder.query('SELECT pg_advisory_unlock($1)', [FEED_LOCK]);
    await f.tracker.ctx.feed.flush();

    expect(await onlineLogged()).toBe(UNITS);
    await new Promise((r) => setTimeout(r, 200)); // the last NOTIFY's delivery
    // The first unit's batch, which waited for the lock, and one with everything that came meanwhile.
    expect(announced).toHaveLength(2);
  } finally {
    await Promise.all([holder.end(), listener.end()]);
  }
});
