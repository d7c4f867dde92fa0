// The live feed on both database engines, in-process tracker, called as the gateway calls it: the
// embedded database (PGlite, one tracker) streams and resumes like PostgreSQL; positions of an
// account nobody streams are not logged at all, and are from the moment a stream opens.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { ENGINES } from '../helpers/databases.js';
import { DeviceClient } from '../helpers/device-client.js';
import { SseClient } from '../helpers/sse-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

describe.each(ENGINES)('live feed on %s', (engine) => {
  let f: TrackerFixture;
  let account: string;
  let deviceId: string;
  let d: DeviceClient;
  const streams: SseClient[] = [];
  let minute = 0;
  const base = Math.floor((Date.now() - 86_400_000) / 60_000) * 60_000;

  const report = async () => {
    d.send(gt06Position({ time: new Date(base + ++minute * 60_000), lat: 52.5 + minute / 10_000, lng: 13.4, speed: 30, heading: 0 }, {}, 2));
    await d.read(10);
  };
  const open = async (headers: Record<string, string> = {}) => {
    const signed = { [INTERNAL_HEADERS.secret]: f.tracker.ctx.gatewaySecret, [INTERNAL_HEADERS.accountId]: account, [INTERNAL_HEADERS.tokenId]: 'tok_test', [INTERNAL_HEADERS.scopes]: 'read', ...headers };
    const s = await SseClient.open(`http://127.0.0.1:${f.tracker.httpPort}/api/public/v1/stream?kinds=position`, 'unused', signed);
    streams.push(s);
    return s;
  };
  const logged = async () => (await f.tracker.ctx.db.query<{ n: number }>("SELECT count(*)::int AS n FROM feed_log WHERE kind = 'position'"))[0]!.n;

  beforeAll(async () => {
    f = await startTrackerFixture(engine);
    account = await f.account('Embedded fleet');
    deviceId = await f.device(account, '359633100017201');
    d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(gt06Login('359633100017201', 1));
    await d.read(10);
  }, 60_000);

  afterAll(async () => {
    for (const s of streams) s.close();
    d?.close();
    await f?.close();
  });

  test('nothing is logged for an account nobody streams; a stream gets positions live and resumes', async () => {
    await report();
    await f.tracker.ctx.feed.flush();
    expect(await logged()).toBe(0);

    const s = await open();
    expect(s.status).toBe(200);
    await report();
    await s.until(() => s.events.length === 1);
    expect(s.events[0]!.data).toMatchObject({ deviceId, timestamp: new Date(base + minute * 60_000).toISOString() });
    s.close();

    await report();
    await report();
    const again = await open({ 'last-event-id': s.events[0]!.id! });
    await again.until(() => again.events.length === 2);
    expect(again.events.map((e) => e.data.timestamp)).toEqual([new Date(base + (minute - 1) * 60_000).toISOString(), new Date(base + minute * 60_000).toISOString()]);
    expect(await logged()).toBe(3);
  });
});
