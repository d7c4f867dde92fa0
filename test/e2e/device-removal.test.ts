// A unit removed or given another identifier through the API while its device is connected over real
// TCP: the tracker closes the connection, and what the device sends afterwards is not stored.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { DeviceClient } from '../helpers/device-client.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let account: string;
let port: number;
const V1 = '/api/public/v1';
const fix = (i: number) => ({ time: new Date(Date.UTC(2026, 10, 21, 8, 0, i)), lat: 52.52 + i / 10000, lng: 13.405, speed: 30, heading: 90 });

const stored = async (deviceId: string) => (await f.tracker.ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM positions WHERE device_id = $1', [deviceId]))[0]!.n;

/** A device that logged in and had one position stored (ACKed after commit). */
async function reporting(imei: string): Promise<DeviceClient> {
  const d = await DeviceClient.open(port);
  d.send(gt06Login(imei, 1));
  await d.read(10);
  d.send(gt06Position(fix(1), {}, 2));
  await d.read(10);
  return d;
}

/** Sends a position and reports whether the tracker answered it before closing or timing out. */
async function acked(d: DeviceClient, i: number): Promise<boolean> {
  d.send(gt06Position(fix(i), {}, i));
  return d.read(10, 1500).then(() => true, () => false);
}

beforeAll(async () => {
  f = await startTrackerFixture('postgres', { DEVICE_TIMEOUT_SECONDS: '60', LOGIN_TIMEOUT_SECONDS: '2' });
  account = await f.account('Fleet');
  port = f.tracker.ingest.ports.device!;
});
afterAll(() => f.close());

describe('a connected device', () => {
  test('removed: its connection is closed, and its next report, even on a new connection, is not stored', async () => {
    const created = await f.as(account).post(`${V1}/devices`).send({ name: 'Van', imei: '359633100780001' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const d = await reporting('359633100780001');
    expect(await stored(id)).toBe(1);

    const removed = await f.as(account).delete(`${V1}/devices/${id}`);
    expect(removed.body).toMatchObject({ removed: true, positions: 'kept' });
    expect(await d.waitClosed(3000)).toBe(true);

    const again = await DeviceClient.open(port);
    again.send(gt06Login('359633100780001', 3));
    expect(await again.waitClosed(3000)).toBe(true); // an unknown identifier is refused at login
    expect(again.pending().length).toBe(0);
    expect(await stored(id)).toBe(1);
  });

  test('given another identifier: the old hardware is cut off, the new one reports under the same unit', async () => {
    const created = await f.as(account).post(`${V1}/devices`).send({ name: 'Truck', imei: '359633100780002' });
    const id = created.body.id as string;
    const old = await reporting('359633100780002');
    const patched = await f.as(account).patch(`${V1}/devices/${id}`).send({ imei: '359633100780003' });
    expect(patched.status).toBe(200);
    expect(await old.waitClosed(3000)).toBe(true);

    const replaced = await DeviceClient.open(port);
    replaced.send(gt06Login('359633100780003', 1));
    await replaced.read(10);
    expect(await acked(replaced, 5)).toBe(true);
    expect(await stored(id)).toBe(2);
    replaced.close();
  });

  test('a report racing the removal is refused, not stored under the removed id', async () => {
    const created = await f.as(account).post(`${V1}/devices`).send({ name: 'Racer', imei: '359633100780004' });
    const id = created.body.id as string;
    const d = await reporting('359633100780004');
    // Removed behind the tracker's back: no notice reaches the connection, which still speaks for the id.
    await f.tracker.ctx.db.transaction(async (tx) => {
      for (const table of ['device_status_changes', 'events']) await tx.query(`DELETE FROM ${table} WHERE device_id = $1`, [id]);
      await tx.query('DELETE FROM devices WHERE id = $1', [id]);
    });
    const refusedBefore = f.tracker.ingest.deps.batcher.refusedWrites;
    expect(await acked(d, 7)).toBe(false);
    expect(await d.waitClosed(3000)).toBe(true);
    expect(await stored(id)).toBe(1);
    // Refused as a removed unit's, not as a write the database failed (which operators are alerted to).
    expect(f.tracker.ingest.deps.batcher.refusedWrites).toBe(refusedBefore);
  });
});
