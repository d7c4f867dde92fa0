// A unit's OsmAnd report key, set and cleared by the operator CLI and on the dashboard's device
// page, against a real tracker: once set, a report without it (or with another) gets the answer of
// an unknown identifier and stores nothing; with it the report is stored, and the key is neither
// logged nor kept with the position.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Agent } from 'node:http';
import request from 'supertest';
import { osmandJson, osmandQueryString } from '../../tracker/simulator/frames/osmand.js';
import { runCli } from '../helpers/cli.js';
import { phoneReport } from '../helpers/device-client.js';
import { account, createOwner, signIn, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';
import { stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';
import type { Queryable } from '../../tracker/storage/db.js';

const fix = (i: number) => ({ time: new Date(Date.UTC(2026, 10, 22, 11, 0, i)), lat: 48.1, lng: 11.5, speed: 5, heading: 0 });

const stored = async (db: Queryable, deviceId: string) =>
  db.query<{ t: Date; attributes: Record<string, unknown> }>('SELECT device_time AS t, attributes FROM positions WHERE device_id = $1 ORDER BY device_time', [deviceId]);

describe('operator CLI', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await createStack();
  });
  afterAll(async () => {
    await stopAllServices();
    await stack.close();
  });

  test('devices key --set prints a key once; reports need it until --clear', async () => {
    const acc = await stack.account('Phones');
    const deviceId = await stack.device(acc, '359633100000901');
    const tracker = await stack.startTracker({ LOG_LEVEL: 'debug' });
    const cli = (...args: string[]) => runCli(['devices', 'key', deviceId, ...args, '--json'], { DATABASE_URL: stack.database.url, DATA_DIR: stack.database.dataDir });
    const set = await cli('--set');
    expect(set.stderr).toBe('');
    const { key } = JSON.parse(set.stdout) as { key: string };
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const http = request(`http://127.0.0.1:${tracker.devicePorts.osmand}`);
    const unknown = await http.get(`/?${osmandQueryString('359633199999901', fix(0))}`);
    const without = await http.get(`/?${osmandQueryString('359633100000901', fix(1))}`);
    const wrong = await http.get(`/?${osmandQueryString('359633100000901', fix(2))}&key=${'x'.repeat(43)}`);
    for (const res of [without, wrong]) expect({ status: res.status, body: res.text }).toEqual({ status: unknown.status, body: unknown.text });
    expect(await stored(stack.admin.db, deviceId)).toEqual([]);

    expect((await http.get(`/?${osmandQueryString('359633100000901', fix(3))}&key=${key}`)).status).toBe(200);
    expect((await http.post(`/?key=${key}`).send(osmandJson('359633100000901', fix(4)))).status).toBe(200);
    const kept = await stored(stack.admin.db, deviceId);
    expect(kept.map((p) => p.t.getTime())).toEqual([fix(3).time.getTime(), fix(4).time.getTime()]);
    expect(JSON.stringify(kept)).not.toContain(key);

    const given = 'my-phone-key-0123456789';
    expect(JSON.parse((await cli('--set', '--key', given)).stdout)).toEqual({ id: deviceId, key: given });
    expect((await http.get(`/?${osmandQueryString('359633100000901', fix(5))}&key=${given}`)).status).toBe(200);
    expect(JSON.parse((await cli('--clear')).stdout)).toEqual({ id: deviceId, key: null });
    expect((await http.get(`/?${osmandQueryString('359633100000901', fix(6))}`)).status).toBe(200);
    expect((await stored(stack.admin.db, deviceId)).map((p) => p.t.getTime())).toContain(fix(6).time.getTime());

    const usage = await runCli(['devices', 'key', deviceId, '--set', '--clear'], { DATABASE_URL: stack.database.url, DATA_DIR: stack.database.dataDir });
    expect(usage.code).toBe(1);
    expect(usage.stderr).toContain('give one of --set or --clear');
    await tracker.stop();
    expect(tracker.logs.join('\n')).not.toContain(key);
    expect(tracker.logs.join('\n')).not.toContain(given);
  });

  test('a new key, or the unit given another identifier, holds from the next report on the same connection', async () => {
    const acc = await stack.account('Phones');
    const imei = '359633100000951';
    const deviceId = await stack.device(acc, imei);
    const tracker = await stack.startTracker();
    const cli = (...args: string[]) => runCli(['devices', ...args, '--json'], { DATABASE_URL: stack.database.url, DATA_DIR: stack.database.dataDir });
    const { key: first } = JSON.parse((await cli('key', deviceId, '--set')).stdout) as { key: string };
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const port = tracker.devicePorts.osmand!;
    const times = async () => (await stored(stack.admin.db, deviceId)).map((p) => p.t.getTime());
    try {
      expect(await phoneReport(agent, port, `/?${osmandQueryString(imei, fix(10))}&key=${first}`)).toEqual({ status: 200, reused: false });
      expect(await phoneReport(agent, port, `/?${osmandQueryString(imei, fix(11))}&key=${first}`)).toEqual({ status: 200, reused: true });
      expect(await times()).toEqual([fix(10).time.getTime(), fix(11).time.getTime()]);

      const { key: second } = JSON.parse((await cli('key', deviceId, '--set')).stdout) as { key: string };
      await new Promise((r) => setTimeout(r, 300)); // the notice reaches the tracker
      expect(await phoneReport(agent, port, `/?${osmandQueryString(imei, fix(12))}&key=${first}`)).toEqual({ status: 200, reused: true });
      expect(await times()).not.toContain(fix(12).time.getTime());
      expect(await phoneReport(agent, port, `/?${osmandQueryString(imei, fix(13))}&key=${second}`)).toEqual({ status: 200, reused: true });
      expect(await times()).toContain(fix(13).time.getTime());

      expect((await cli('update', deviceId, '--imei', '359633100000952')).stderr).toBe('');
      await new Promise((r) => setTimeout(r, 300));
      await phoneReport(agent, port, `/?${osmandQueryString(imei, fix(14))}&key=${second}`);
      expect(await times()).not.toContain(fix(14).time.getTime());
    } finally {
      agent.destroy();
    }
  });
});

describe('dashboard', () => {
  let stack: DashboardStack;
  beforeAll(async () => {
    stack = await startDashboardStack();
  });
  afterAll(() => stack.close());

  test('the device page sets a key (shown once), which reports then need, and removes it', async () => {
    const acc = await account(stack, 'Owner');
    await createOwner(stack, acc, 'owner@phones.test', 'correct horse battery staple');
    const me = await signIn(stack, 'owner@phones.test', 'correct horse battery staple');
    const deviceId = ((await stack.tracker.ctx.db.query<{ id: string }>("INSERT INTO devices (id, account_id, imei, name) VALUES ('dev_phone1', $1, '359633100000911', 'Phone') RETURNING id", [acc]))[0]!).id;
    expect((await me.get(`/dashboard/devices/${deviceId}`)).text).toContain('No key is set');

    const set = await me.post(`/dashboard/devices/${deviceId}/report-key`, { action: 'set' });
    expect(set.status).toBe(200);
    const key = /id="new-report-key"[^>]*>([^<]+)</.exec(set.text)?.[1];
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const again = await me.get(`/dashboard/devices/${deviceId}`);
    expect(again.text).toContain('A key is set');
    expect(again.text).not.toContain(key);

    const http = request(`http://127.0.0.1:${stack.tracker.ingest.ports.osmand}`);
    await http.get(`/?${osmandQueryString('359633100000911', fix(20))}`).expect(200);
    await http.get(`/?${osmandQueryString('359633100000911', fix(21))}&key=${key}`).expect(200);
    expect((await stored(stack.tracker.ctx.db, deviceId)).map((p) => p.t.getTime())).toEqual([fix(21).time.getTime()]);

    const cleared = await me.post(`/dashboard/devices/${deviceId}/report-key`, { action: 'clear' });
    expect(cleared.status).toBe(303);
    expect((await me.get(cleared.location!)).text).toContain('Report key removed');
    await http.get(`/?${osmandQueryString('359633100000911', fix(22))}`).expect(200);
    expect((await stored(stack.tracker.ctx.db, deviceId)).map((p) => p.t.getTime())).toEqual([fix(21).time.getTime(), fix(22).time.getTime()]);
  });
});
