// Commands for phones (OsmAnd over HTTP) go in the answer to a report. A phone found with nothing
// queued is not asked for again until a command for it is notified; when the tracker's notification
// connection is lost, a command queued meanwhile (its notification gone) still reaches the phone's
// next report once the connection is back. A phone found with no command awaiting its reply either is
// not looked up on its next reports, until a command for it is notified: the locate it answers is
// still delivered. Every answer goes with its Content-Length, not chunked.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const IMEI = '359633100000404';
const fix = (i: number) => ({ time: new Date(Date.now() - 60_000 + i * 1000), lat: 52.52 + i / 10000, lng: 13.405, speed: 30, heading: 90 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('commands for phones on postgres', () => {
  let f: TrackerFixture;
  let account: string;
  let device: string;
  const answer = (i: number) => request(`http://127.0.0.1:${f.tracker.ingest.ports.osmand}`).get(`/?${osmandQueryString(IMEI, fix(i))}`).buffer(true);
  const report = async (i: number) => (await answer(i)).text;
  const locate = async () => {
    const res = await f.as(account).post(`/api/public/v1/devices/${device}/locate`);
    expect(res.status).toBe(200);
    return res.body.commandId as string;
  };
  const status = async (commandId: string) => (await f.as(account).get(`/api/public/v1/devices/${device}/commands/${commandId}`).expect(200)).body as { status: string; reply?: string };
  const listeners = async () =>
    (await f.tracker.ctx.db.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = 'LISTEN "device_commands"'`)).map((r) => r.pid);

  beforeAll(async () => {
    f = await startTrackerFixture('postgres');
    account = await f.account('Phones');
    device = await f.device(account, IMEI, 'Phone');
  }, 120_000);
  afterAll(() => f.close());

  test('a phone with nothing queued gets empty answers; a command queued later comes with the next report', async () => {
    expect(await report(1)).toBe('');
    expect(await report(2)).toBe('');
    await locate();
    await sleep(200);
    expect(await report(3)).toBe('locate');
    expect(await report(4)).toBe('');
  });

  test('an answer goes with its length, not chunked, with or without a command in it', async () => {
    const idle = await answer(5);
    expect([idle.text, idle.headers['content-length'], idle.headers['transfer-encoding']]).toEqual(['', '0', undefined]);
    await locate();
    await sleep(200);
    const carrying = await answer(6);
    expect([carrying.text, carrying.headers['content-length'], carrying.headers['transfer-encoding']]).toEqual(['locate', '6', undefined]);
    expect(await report(7)).toBe('');
  });

  test('after idle reports, a locate is delivered by the report that follows its answer', async () => {
    for (let i = 10; i < 14; i++) expect(await report(i)).toBe('');
    const commandId = await locate();
    await sleep(200);
    expect(await report(14)).toBe('locate');
    expect((await status(commandId)).status).toBe('sent');
    expect(await report(15)).toBe('');
    expect(await status(commandId)).toMatchObject({ status: 'delivered', reply: 'position report' });
    for (let i = 16; i < 19; i++) expect(await report(i)).toBe('');
    const next = await locate();
    await sleep(200);
    expect(await report(19)).toBe('locate');
    expect(await report(20)).toBe('');
    expect((await status(next)).status).toBe('delivered');
  });

  test('a command queued while the notification connection is down reaches the next report once it is back', async () => {
    expect(await report(5)).toBe('');
    const [listener] = await listeners();
    expect(listener).toBeDefined();
    await f.tracker.ctx.db.query('SELECT pg_terminate_backend($1)', [listener]);
    const commandId = await locate(); // notified to nobody
    // The tracker listens again on a new connection within a few seconds.
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await sleep(100)) {
      const now = await listeners();
      if (now.length > 0 && !now.includes(listener!)) break;
    }
    await sleep(200);
    expect(await report(6)).toBe('locate');
    expect(await report(7)).toBe('');
    expect((await status(commandId)).status).toBe('delivered');
  });
});
