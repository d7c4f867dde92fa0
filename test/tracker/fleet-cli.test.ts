// The operator CLI's fleet commands: accounts list, devices list|update|remove, users list|remove,
// run as a user would (a child process on the machine's PostgreSQL) beside a running tracker, which
// hears of a removal from the CLI's process and closes the device's connection.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { runCli } from '../helpers/cli.js';
import { DeviceClient } from '../helpers/device-client.js';
import { freePort } from '../helpers/ports.js';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

let f: TrackerFixture;
let env: Record<string, string | undefined>;
let acme: string;

const cli = async (...args: string[]) => {
  const r = await runCli(args, env);
  return { ...r, json: () => JSON.parse(r.stdout) as Record<string, unknown> };
};
const ok = async (...args: string[]) => {
  const r = await cli(...args);
  expect([r.code, r.stderr]).toEqual([0, '']);
  return r;
};

beforeAll(async () => {
  f = await startTrackerFixture('postgres', { DEVICE_TIMEOUT_SECONDS: '60' });
  env = { DATABASE_URL: f.db.url, DATA_DIR: f.db.dataDir, TRACKER_URL: `http://127.0.0.1:${await freePort()}` };
  acme = await f.account('Acme');
});
afterAll(() => f.close());

describe('accounts list', () => {
  test('every account with its number of devices, as text and as one JSON object', async () => {
    const empty = await f.account('Empty');
    await f.device(acme, '359633100790001', 'Van 1');
    const json = (await ok('accounts', 'list', '--json')).json() as { accounts: { id: string; name: string; devices: number }[] };
    expect(json.accounts).toEqual(expect.arrayContaining([expect.objectContaining({ id: acme, name: 'Acme', devices: 1 }), expect.objectContaining({ id: empty, name: 'Empty', devices: 0 })]));
    const text = (await ok('accounts', 'list')).stdout;
    expect(text).toMatch(new RegExp(`${acme}\\s+1 devices\\s+created \\S+\\s+Acme\\n`));
  });
});

describe('devices list, update, remove', () => {
  test('list shows the account’s devices; an unknown account is an error', async () => {
    const text = (await ok('devices', 'list', '--account', acme)).stdout;
    expect(text).toMatch(/dev_\S+\s+359633100790001\s+offline\s+last update -\s+Van 1\n/);
    const json = (await ok('devices', 'list', '--account', acme, '--json')).json() as { devices: { imei: string }[] };
    expect(json.devices.map((d) => d.imei)).toEqual(['359633100790001']);
    const bad = await cli('devices', 'list', '--account', 'acc_unknown');
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([1, '', 'error: no account acc_unknown\n']);
  });

  test('update changes what it is given; a taken or malformed identifier, or nothing to change, is refused and changes nothing', async () => {
    const id = await f.device(acme, '359633100790002', 'Truck');
    await f.device(await f.account('Holder'), '359633100790003', 'Theirs');
    const r = await ok('devices', 'update', id, '--name', 'Truck 2', '--plate', 'T-2');
    expect(r.stdout).toBe(`Device ${id} updated: Truck 2, identifier 359633100790002, plate T-2.\n`);
    for (const [args, message] of [
      [['--imei', '359633100790003'], /error: a device with identifier 359633100790003 already exists/],
      [['--imei', '12ab'], /error: device identifier must be 5 to 20 digits/],
      [[], /error: give at least one of --name, --plate, --imei/],
      [['--name', ' '], /error: device name must not be empty/],
    ] as [string[], RegExp][]) {
      const bad = await cli('devices', 'update', id, ...args);
      expect([bad.code, bad.stdout]).toEqual([1, '']);
      expect(bad.stderr).toMatch(message);
    }
    const unknown = await cli('devices', 'update', 'dev_nope', '--name', 'X');
    expect(unknown.stderr).toBe('error: no device dev_nope\n');
    const after = (await ok('devices', 'list', '--account', acme, '--json')).json() as { devices: { id: string; name: string; imei: string; plate: string }[] };
    expect(after.devices.find((d) => d.id === id)).toMatchObject({ name: 'Truck 2', imei: '359633100790002', plate: 'T-2' });
  });

  test('remove closes the device’s connection in the running tracker and keeps or removes its history as asked', async () => {
    const id = await f.device(acme, '359633100790004', 'Connected');
    const d = await DeviceClient.open(f.tracker.ingest.ports.device!);
    d.send(gt06Login('359633100790004', 1));
    await d.read(10);
    d.send(gt06Position({ time: new Date(Date.UTC(2026, 10, 21, 8)), lat: 52.5, lng: 13.4, speed: 20, heading: 0 }, {}, 2));
    await d.read(10);

    const bad = await cli('devices', 'remove', id, '--positions', 'some');
    expect([bad.code, bad.stderr]).toEqual([1, 'error: --positions must be keep or remove, not "some"\n']);
    expect(d.closed).toBe(false);

    const r = await ok('devices', 'remove', id, '--positions', 'remove', '--json');
    expect(r.json()).toEqual({ id, removed: true, positions: 'removed', positionsRemoved: 1 });
    expect(await d.waitClosed(3000)).toBe(true);

    const kept = await f.device(acme, '359633100790005', 'Parked');
    expect((await ok('devices', 'remove', kept)).stdout).toBe(`Device ${kept} removed; its positions were kept.\n`);
    const again = await cli('devices', 'remove', kept);
    expect([again.code, again.stderr]).toEqual([1, `error: no device ${kept}\n`]);
  });
});

describe('users list, remove', () => {
  test('list shows the account’s dashboard users; remove signs one out and frees the address', async () => {
    const created = (await ok('users', 'create', '--account', acme, '--email', 'owner@acme.example', '--json')).json() as { id: string };
    await ok('users', 'create', '--account', acme, '--email', 'clerk@acme.example');
    await f.tracker.ctx.db.query("INSERT INTO dashboard_sessions (id_hash, user_id, csrf_token, expires_at) VALUES ('h1', $1, 'c', now() + interval '1 hour')", [created.id]);
    const text = (await ok('users', 'list', '--account', acme)).stdout;
    expect(text.trim().split('\n')).toHaveLength(2);
    expect(text).toMatch(new RegExp(`${created.id}\\s+no password\\s+created \\S+\\s+owner@acme.example`));

    const r = await ok('users', 'remove', '--email', 'Owner@Acme.example');
    expect(r.stdout).toBe(`Dashboard user ${created.id} (owner@acme.example) removed; their sessions are signed out.\n`);
    expect((await f.tracker.ctx.db.query('SELECT 1 FROM dashboard_sessions WHERE user_id = $1', [created.id])).length).toBe(0);
    const json = (await ok('users', 'list', '--account', acme, '--json')).json() as { users: { email: string }[] };
    expect(json.users.map((u) => u.email)).toEqual(['clerk@acme.example']);

    const gone = await cli('users', 'remove', '--email', 'owner@acme.example');
    expect([gone.code, gone.stdout, gone.stderr]).toEqual([1, '', 'error: no dashboard user owner@acme.example\n']);
    const bad = await cli('users', 'remove', '--email', 'not-an-address');
    expect(bad.stderr).toMatch(/error: email must be an email address/);
    await ok('users', 'create', '--account', acme, '--email', 'owner@acme.example');
  });
});
