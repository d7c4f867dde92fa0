// Dashboard pages through the gateway and the real tracker: what an owner sees and changes, that
// every value is escaped under a strict CSP, and that an owner never reaches another account's
// devices, tokens or alerts, by URL manipulation included.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { runVerb } from '../../tracker/admin/verbs.js';
import { insertAlert } from '../../tracker/alerts/repository.js';
import { findDevice } from '../../tracker/devices/repository.js';
import { insertPositions } from '../../tracker/positions/repository.js';
import { encodeCursor } from '../../tracker/storage/paging.js';
import { findToken } from '../../tracker/tokens/repository.js';
import { account, createOwner, FormClient, signIn, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';

let stack: DashboardStack;
let mine: string;
let theirs: string;
let me: FormClient;
const PASSWORD = 'correct horse battery staple';
const SCRIPT = '<script>alert(1)</script>';
const their = { device: '', token: '', alert: 0 };
let myDevice: string;

const run = (name: Parameters<typeof runVerb>[1], args: Record<string, unknown>) => runVerb(stack.tracker.ctx, name, args) as Promise<Record<string, string>>;

beforeAll(async () => {
  stack = await startDashboardStack();
  mine = await account(stack, 'Mine');
  theirs = await account(stack, 'Theirs');
  await createOwner(stack, mine, 'me@mine.test', PASSWORD);
  await createOwner(stack, theirs, 'them@theirs.test', PASSWORD);
  myDevice = (await run('devices add', { account: mine, imei: '359633100007001', name: SCRIPT, plate: '"><img src=x onerror=alert(2)>' })).id!;
  their.device = (await run('devices add', { account: theirs, imei: '359633100007002', name: 'Their secret van' })).id!;
  their.token = (await run('tokens create', { account: theirs, scopes: 'read', name: 'Their ERP' })).id!;
  const db = stack.tracker.ctx.db;
  await insertAlert(db, { accountId: mine, deviceId: myDevice, type: 'sos', severity: 'critical', message: `SOS <img src=x onerror=alert(3)>` });
  their.alert = (await insertAlert(db, { accountId: theirs, deviceId: their.device, type: 'speeding', severity: 'warning', message: 'Their speeding alert' })).id;
  me = await signIn(stack, 'me@mine.test', PASSWORD);
}, 60_000);
afterAll(() => stack.close());

describe('escaping and content security', () => {
  test('a device named <script> is shown as text on every page, under a CSP with no inline script', async () => {
    for (const path of ['/dashboard/devices', `/dashboard/devices/${myDevice}`, `/dashboard/devices/${myDevice}/track`, '/dashboard/alerts']) {
      const page = await me.get(path);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain(SCRIPT);
      expect(page.text).not.toContain('<img src=x');
      if (path !== '/dashboard/alerts') expect(page.text).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      // Every script comes from our own files (the devices and track pages add the map's); nothing inline could run anyway.
      const scripts = { '/dashboard/devices': ['dashboard', 'leaflet', 'leaflet\\.markercluster', 'fleet-map'], [`/dashboard/devices/${myDevice}/track`]: ['dashboard', 'leaflet', 'track-replay'] }[path] ?? ['dashboard'];
      expect([...page.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0])).toEqual(scripts.map((name) => expect.stringMatching(new RegExp(`^<script src="/dashboard/assets/${name}\\.js\\?v=[0-9a-f]+" defer>$`))));
      // Images from the map's tile server besides our own; requests (the map's updates) to ourselves only.
      expect(page.headers.get('content-security-policy')).toBe("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' https://tile.openstreetmap.org; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; connect-src 'self'");
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('cache-control')).toBe('no-store');
    }
    expect((await me.get('/dashboard/alerts')).text).toContain('SOS &lt;img src=x onerror=alert(3)&gt;');
    expect((await me.get('/dashboard/devices')).text).toContain('&quot;&gt;&lt;img src=x onerror=alert(2)&gt;');
  });

  test('a token name with markup is escaped in the list and in the “created” notice', async () => {
    await me.get('/dashboard/tokens');
    const created = await me.post('/dashboard/tokens', { name: '<b onmouseover=alert(4)>ERP</b>', scopes: ['read'] });
    expect(created.status).toBe(201);
    expect(created.text).not.toContain('<b onmouseover');
    expect(created.text).toContain('&lt;b onmouseover=alert(4)&gt;ERP&lt;/b&gt;');
  });

  test('static files are served with their type and cached while their version matches', async () => {
    const page = await me.get('/dashboard/devices');
    const css = /href="(\/dashboard\/assets\/dashboard\.css\?v=[0-9a-f]+)"/.exec(page.text)![1]!;
    const res = await me.get(css);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await me.get('/dashboard/assets/dashboard.css?v=old')).headers.get('cache-control')).toBe('no-cache');
    expect((await me.get('/dashboard/assets/dashboard.js')).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await me.get('/dashboard/assets/secrets.txt')).status).toBe(404);
    expect((await me.get('/dashboard/assets/..%2F..%2Fpackage.json')).status).toBe(404);
  });
});

describe('account isolation', () => {
  test('lists never show another account’s devices, tokens or alerts', async () => {
    expect((await me.get('/dashboard/devices')).text).not.toContain('Their secret van');
    expect((await me.get('/dashboard/tokens')).text).not.toContain('Their ERP');
    for (const status of ['open', 'acknowledged']) expect((await me.get(`/dashboard/alerts?status=${status}`)).text).not.toContain('Their speeding alert');
  });

  test("another account's device is a 404 on every page and cannot be changed", async () => {
    for (const path of [`/dashboard/devices/${their.device}`, `/dashboard/devices/${their.device}/track`]) {
      const res = await me.get(path);
      expect(res.status).toBe(404);
      expect(res.text).not.toContain('Their secret van');
    }
    await me.get('/dashboard/devices');
    const edit = await me.post(`/dashboard/devices/${their.device}`, { name: 'Hijacked', plate: '' });
    expect(edit.status).toBe(404);
    expect((await findDevice(stack.tracker.ctx.db, theirs, their.device))!.name).toBe('Their secret van');
    expect((await me.get(`/dashboard/devices?added=${their.device}`)).text).not.toContain('Their secret van');
  });

  test("another account's token cannot be revoked, nor named through the notice", async () => {
    await me.get('/dashboard/tokens');
    const res = await me.post(`/dashboard/tokens/${their.token}/revoke`, {});
    expect(res.status).toBe(404);
    expect((await findToken(stack.tracker.ctx.db, their.token))!.revokedAt).toBeNull();
    expect((await me.get(`/dashboard/tokens?revoked=${their.token}`)).text).not.toContain('Their ERP');
  });
});

describe('devices', () => {
  test('adding a device: bad input gets the field’s message and adds nothing; a duplicate identifier is refused', async () => {
    await me.get('/dashboard/devices');
    const bad = await me.post('/dashboard/devices', { imei: '12ab', name: '', plate: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('device identifier must be 5 to 20 digits');
    expect(bad.text).toContain('device name must not be empty');
    expect(bad.text).toMatch(/id="field-imei"[^>]*aria-invalid="true"/);
    expect(bad.text).toContain('value="12ab"');
    const dup = await me.post('/dashboard/devices', { imei: '359633100007002', name: 'Copy', plate: '' });
    expect(dup.status).toBe(409);
    expect(dup.text).toContain('a device with identifier 359633100007002 already exists');
    const ok = await me.post('/dashboard/devices', { imei: ' 359633100007003 ', name: 'Van 3', plate: 'B-VN 3' });
    expect(ok.status).toBe(303);
    const id = new URL(ok.location!, stack.url).searchParams.get('added')!;
    expect(await findDevice(stack.tracker.ctx.db, mine, id)).toMatchObject({ imei: '359633100007003', name: 'Van 3', plate: 'B-VN 3' });
    expect((await me.get(ok.location!)).text).toContain('Device <strong>Van 3</strong> added.');
  });

  test('editing name and plate: empty name refused and nothing changed; a valid change saved', async () => {
    await me.get(`/dashboard/devices/${myDevice}`);
    const bad = await me.post(`/dashboard/devices/${myDevice}`, { name: '  ', plate: 'X'.repeat(33) });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('device name must not be empty');
    expect(bad.text).toContain('plate must be at most 32 characters');
    expect((await findDevice(stack.tracker.ctx.db, mine, myDevice))!.name).toBe(SCRIPT);
    const ok = await me.post(`/dashboard/devices/${myDevice}`, { name: 'Van 1', plate: 'AB-123' });
    expect(ok.status).toBe(303);
    expect((await me.get(ok.location!)).text).toContain('Changes saved.');
    expect(await findDevice(stack.tracker.ctx.db, mine, myDevice)).toMatchObject({ name: 'Van 1', plate: 'AB-123' });
  });

  test('the list shows status, last position and last update', async () => {
    const t = new Date('2026-11-20T08:15:00Z');
    await insertPositions(stack.tracker.ctx.db, [{ deviceId: myDevice, position: { deviceTime: t, valid: true, lat: 52.520008, lng: 13.404954, speed: 42.4, heading: 90, attributes: {} } }]);
    await stack.tracker.ctx.db.query('UPDATE devices SET last_lat = 52.520008, last_lng = 13.404954, last_speed = 42.4, last_heading = 90, last_update = $2 WHERE id = $1', [myDevice, t]);
    const page = (await me.get('/dashboard/devices')).text;
    expect(page).toContain('52.52001, 13.40495');
    expect(page).toContain('<time datetime="2026-11-20T08:15:00.000Z">2026-11-20 08:15 UTC</time>');
    expect(page).toContain('42 km/h');
    expect(page).toContain('badge-offline');
  });
});

describe('track', () => {
  test('draws the period’s positions as one polyline with start, end and a scale', async () => {
    const start = Date.UTC(2026, 10, 10, 6, 0, 0);
    const rows = Array.from({ length: 30 }, (_, i) => ({ deviceId: myDevice, position: { deviceTime: new Date(start + i * 60_000), valid: true, lat: 48.85 + i * 0.001, lng: 2.35 + i * 0.001, speed: 30, heading: 45, attributes: {} } }));
    await insertPositions(stack.tracker.ctx.db, rows);
    const page = await me.get(`/dashboard/devices/${myDevice}/track?from=2026-11-10T05:00&to=2026-11-10T08:00`);
    expect(page.status).toBe(200);
    const points = /<polyline class="track-line" points="([^"]+)"/.exec(page.text)![1]!.split(' ');
    expect(points).toHaveLength(30);
    expect(page.text).toContain('<title>Start: 2026-11-10 06:00 UTC</title>');
    expect(page.text).toContain('<title>End: 2026-11-10 06:29 UTC</title>');
    expect(page.text).toMatch(/<text [^>]*>\d+ (m|km)<\/text>/);
    expect(page.text).toContain('30 positions');
  });

  test('an empty period says so; a bad or too long period names the problem', async () => {
    const empty = await me.get(`/dashboard/devices/${myDevice}/track?from=2025-01-01T00:00&to=2025-01-02T00:00`);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No positions in this period.');
    const long = await me.get(`/dashboard/devices/${myDevice}/track?from=2026-01-01T00:00&to=2026-04-02T00:00`);
    expect(long.status).toBe(400);
    expect(long.text).toContain('the period may span at most 90 days');
    const backwards = await me.get(`/dashboard/devices/${myDevice}/track?from=2026-02-01T00:00&to=2026-01-01T00:00`);
    expect(backwards.text).toContain('end must not be before start');
    const garbage = await me.get(`/dashboard/devices/${myDevice}/track?from=yesterday&to=2026-01-01T00:00`);
    expect(garbage.status).toBe(400);
    expect(garbage.text).toContain('start must be a date and time such as 2026-11-21T09:30');
    const noSuchDay = await me.get(`/dashboard/devices/${myDevice}/track?from=2026-02-31T00:00&to=2026-03-05T00:00`);
    expect(noSuchDay.status).toBe(400);
    expect(noSuchDay.text).toContain('start is not a real date');
  });
});

describe('alerts', () => {
  test('filters by status, open by default; an unknown status is a 400', async () => {
    const open = await me.get('/dashboard/alerts');
    expect(open.text).toContain('SOS &lt;img');
    expect(open.text).toMatch(/href="\/dashboard\/alerts\?status=open" aria-current="page"/);
    const acknowledged = await me.get('/dashboard/alerts?status=acknowledged');
    expect(acknowledged.text).toContain('No acknowledged alerts.');
    expect(acknowledged.text).not.toContain('SOS &lt;img');
    expect((await me.get('/dashboard/alerts?status=everything')).status).toBe(400);
  });
});

describe('tokens', () => {
  test('create needs a name and a scope; the value is shown once and never again', async () => {
    await me.get('/dashboard/tokens');
    const bad = await me.post('/dashboard/tokens', { name: '', scopes: null });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('token name must not be empty');
    expect(bad.text).toContain('choose at least one scope');
    const unknown = await me.post('/dashboard/tokens', { name: 'x', scopes: ['admin'] });
    expect(unknown.status).toBe(400);

    const created = await me.post('/dashboard/tokens', { name: 'Reporting', scopes: ['read', 'commands'] });
    expect(created.status).toBe(201);
    const token = /<textarea id="new-token-value"[^>]*>([^<]+)<\/textarea>/.exec(created.text)![1]!;
    expect(token.split('.')).toHaveLength(3);
    const list = await me.get('/dashboard/tokens');
    expect(list.text).toContain('Reporting');
    expect(list.text).not.toContain(token);
    expect(list.text).not.toContain(token.split('.')[2]);
  });

  test('revoke marks it revoked in the list', async () => {
    const { id } = await run('tokens create', { account: mine, scopes: 'read', name: 'Old sync' });
    await me.get('/dashboard/tokens');
    const res = await me.post(`/dashboard/tokens/${id}/revoke`, {});
    expect(res.status).toBe(303);
    const page = (await me.get(res.location!)).text;
    expect(page).toContain('Token <strong>Old sync</strong> revoked.');
    expect((await findToken(stack.tracker.ctx.db, id!))!.revokedAt).not.toBeNull();
  });
});

describe('through the gateway', () => {
  test('unknown dashboard paths are 404 and the dashboard needs no bearer token', async () => {
    const anonymous = new FormClient(stack.url);
    expect((await anonymous.get('/dashboard/login')).status).toBe(200);
    expect((await anonymous.get('/dashboard/nothing-here')).status).toBe(404);
    expect((await me.get('/dashboard')).location).toBe('/dashboard/devices');
  });

  test('a crafted cursor on any paged page is a 400 page, never a 500', async () => {
    const crafted = ['+100000-01-01T00:00:00Z', '-000001-01-01T00:00:00Z', '2026-02-30T00:00:00Z'].flatMap((t) => [encodeCursor({ t, id: 1 }), encodeCursor({ t, id: 'drv_x' })]);
    for (const path of ['/dashboard/alerts', '/dashboard/geofences', '/dashboard/drivers', '/dashboard/records/incidents', '/dashboard/records/expenses', '/dashboard/records/work-orders', '/dashboard/records/unit-notes']) {
      for (const cursor of crafted) {
        const res = await me.get(`${path}?cursor=${cursor}`);
        expect({ path, status: res.status }).toEqual({ path, status: 400 });
        expect(res.text).toContain('not a cursor this API returned');
      }
    }
  });

  test('an oversized form is refused with a page, not stored', async () => {
    await me.get('/dashboard/devices');
    const res = await me.post('/dashboard/devices', { imei: '359633100007099', name: 'x'.repeat(20_000), plate: '' });
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await stack.tracker.ctx.db.query("SELECT 1 FROM devices WHERE imei = '359633100007099'")).length).toBe(0);
  });
});
