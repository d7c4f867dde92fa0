// The fleet view in a real browser (Debian's Chromium, driven by playwright-core) through the
// gateway: each device is a marker at its reported place (read from Leaflet in the page), coloured
// by status and turned to its heading; a GT06 unit reporting over TCP moves its marker without a
// reload, through the dashboard's live stream; the stream is the session's account's and ends at
// sign-out; the search filters the list and the markers; a marker's popup names the unit and links
// its pages; geofences lie under the markers; the tiles come from MAP_TILE_URL's origin alone
// (unreachable here, as on a machine without internet: the overlays still show). Screenshots land
// in test/artifacts/dashboard/.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { runVerb } from '../../tracker/admin/verbs.js';
import { createGeofence } from '../../tracker/geofences/repository.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { launchChromium, signedInPage } from '../helpers/browser.js';
import { account, createOwner, FormClient, signIn, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';
import { DeviceClient } from '../helpers/device-client.js';
import { SseClient } from '../helpers/sse-client.js';

const ARTIFACTS = join('test', 'artifacts', 'dashboard');
const PASSWORD = 'a long and memorable passphrase';
const TILES = 'https://tiles.example.test';
const NOW = Math.floor(Date.now() / 1000) * 1000;

interface Unit {
  imei: string;
  name: string;
  id?: string;
  client?: DeviceClient;
}
const van: Unit = { imei: '359633100018001', name: 'Van 1' };
const truck: Unit = { imei: '359633100018002', name: 'Truck 2' };
const car: Unit = { imei: '359633100018003', name: 'Car 3' };
const spare: Unit = { imei: '359633100018004', name: 'Spare 4' };

let stack: DashboardStack;
let browser: Browser;
let page: Page;
let serial = 1;
const problems: string[] = [];

/** A GT06 report, answered (ACKed) after it is stored. */
async function report(unit: Unit, fix: { lat: number; lng: number; speed: number; heading: number; at: number }): Promise<void> {
  unit.client!.send(gt06Position({ time: new Date(fix.at), lat: fix.lat, lng: fix.lng, speed: fix.speed, heading: fix.heading, satellites: 9 }, { ignition: fix.speed > 0 }, serial++));
  await unit.client!.read(10);
}

async function connect(unit: Unit): Promise<void> {
  unit.client = await DeviceClient.open(stack.tracker.ingest.ports.device!);
  unit.client.send(gt06Login(unit.imei, serial++));
  await unit.client.read(10);
}

/** Each marker's place, status class and rotation, as the page's Leaflet has them. */
const markers = () =>
  page.evaluate(() =>
    Object.fromEntries(
      [...(window as unknown as { fleetView: { markers(): Map<string, { getLatLng(): { lat: number; lng: number }; getElement(): HTMLElement | undefined }> } }).fleetView.markers()].map(([id, m]) => {
        const icon = m.getElement()?.querySelector('.fleet-marker');
        return [id, { ...m.getLatLng(), look: icon?.className ?? null, turn: icon?.querySelector('svg')?.style.transform ?? null }];
      }),
    ),
  ) as Promise<Record<string, { lat: number; lng: number; look: string | null; turn: string | null }>>;

async function shot(name: string): Promise<void> {
  // Leaflet's zoom, pan and fade animations (a quarter of a second) end before the picture.
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startDashboardStack({ MAP_TILE_URL: `${TILES}/{z}/{x}/{y}.png`, MAP_ATTRIBUTION: '&copy; <a href="https://tiles.example.test/about">Example tiles</a>' });
  const fleet = await account(stack, 'Northern Haulage');
  for (const unit of [van, truck, car, spare]) unit.id = ((await runVerb(stack.tracker.ctx, 'devices add', { account: fleet, imei: unit.imei, name: unit.name })) as { id: string }).id;
  // Another account's unit, which the fleet view must never show.
  await runVerb(stack.tracker.ctx, 'devices add', { account: await account(stack, 'Rival'), imei: '359633100018099', name: 'Rival van' });
  await createOwner(stack, fleet, 'owner@northern.example', PASSWORD);
  await createGeofence(stack.tracker.ctx.db, fleet, {
    name: 'Hamburg depot',
    description: '',
    shape: { type: 'polygon', points: [{ lat: 53.9, lng: 9.5 }, { lat: 53.9, lng: 10.6 }, { lat: 53.2, lng: 10.4 }, { lat: 53.3, lng: 9.5 }, { lat: 53.9, lng: 9.5 }] },
  });
  await createGeofence(stack.tracker.ctx.db, fleet, { name: 'Munich yard', description: '', shape: { type: 'circle', center: { lat: 48.137, lng: 11.575 }, radius: 40_000 } });

  // Van 1 drives east out of Berlin; Car 3 stands in Munich; Truck 2 reported from Hamburg and went away; Spare 4 never reported.
  for (const unit of [van, truck, car]) await connect(unit);
  await report(van, { lat: 52.52, lng: 13.405, speed: 48, heading: 90, at: NOW - 20_000 });
  await report(car, { lat: 48.137, lng: 11.575, speed: 0, heading: 180, at: NOW - 20_000 });
  await report(truck, { lat: 53.55, lng: 10.0, speed: 0, heading: 270, at: NOW - 60_000 });
  truck.client!.close();
  const offline = async () => (await stack.tracker.ctx.db.query<{ status: string }>('SELECT status FROM devices WHERE id = $1', [truck.id]))[0]!.status;
  for (let i = 0; i < 100 && (await offline()) !== 'offline'; i++) await new Promise((r) => setTimeout(r, 50));

  browser = await launchChromium();
  page = await signedInPage(browser, stack.url, { email: 'owner@northern.example', password: PASSWORD }, { problems, tiles: TILES });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  for (const unit of [van, car]) unit.client?.close();
  await stack?.close();
});

describe('the fleet view', () => {
  test('allows images from the configured tile server only, and shows the overlays without its tiles', async () => {
    const res = await page.reload();
    const policy = res!.headers()['content-security-policy']!;
    expect(policy).toContain(`img-src 'self' ${TILES};`);
    expect(policy).toMatch(/; connect-src 'self'(;|$)/);
    expect(policy).toContain("script-src 'self';");
    await page.waitForFunction(() => document.querySelectorAll('.leaflet-tile').length > 0);
    // While the map settles on its devices, tiles of the first view are replaced: the check is of
    // the tiles it settles with (and names any other source it finds).
    await page
      .waitForFunction((tiles) => [...document.querySelectorAll('img.leaflet-tile')].every((t) => (t as HTMLImageElement).src.startsWith(`${tiles}/`)), TILES, { timeout: 10_000 })
      .catch(() => undefined);
    const sources = await page.locator('img.leaflet-tile').evaluateAll((tiles) => tiles.map((t) => (t as HTMLImageElement).src));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.filter((s) => !s.startsWith(`${TILES}/`))).toEqual([]);
    await expect(page.locator('#fleet-notice').textContent()).resolves.toBe('The map background could not be loaded; devices and geofences are still shown.');
    await expect(page.locator('.leaflet-control-attribution a[href="https://tiles.example.test/about"]').textContent()).resolves.toBe('Example tiles');
    // Both geofences are drawn under the markers.
    await expect(page.locator('.leaflet-overlay-pane path.leaflet-interactive').count()).resolves.toBe(2);
  });

  test('shows each located unit as a marker at its place, coloured by status and turned to its heading', async () => {
    await page.waitForFunction(() => (window as unknown as { fleetView?: { markers(): Map<string, unknown> } }).fleetView?.markers().size === 3);
    await page.locator('.leaflet-marker-pane .fleet-marker').nth(2).waitFor();
    const shown = await markers();
    expect(Object.keys(shown).sort()).toEqual([van.id, truck.id, car.id].sort());
    expect(shown[van.id!]).toMatchObject({ lat: expect.closeTo(52.52, 4), lng: expect.closeTo(13.405, 4), look: 'fleet-marker fleet-marker-moving', turn: 'rotate(90deg)' });
    expect(shown[car.id!]).toMatchObject({ lat: expect.closeTo(48.137, 4), lng: expect.closeTo(11.575, 4), look: 'fleet-marker fleet-marker-stopped', turn: 'rotate(180deg)' });
    expect(shown[truck.id!]).toMatchObject({ lat: expect.closeTo(53.55, 4), lng: expect.closeTo(10.0, 4), look: 'fleet-marker fleet-marker-offline', turn: 'rotate(270deg)' });
    // The list names all four, the unit without a position too; the other account's unit nowhere.
    await expect(page.locator('#fleet-list .fleet-item-name').allTextContents()).resolves.toEqual(['Car 3', 'Spare 4', 'Truck 2', 'Van 1']);
    await expect(page.getByRole('button', { name: 'Spare 4: Offline, no position yet' }).isDisabled()).resolves.toBe(true);
    await expect(page.getByText('Rival van').count()).resolves.toBe(0);
    await expect(page.locator('#fleet-count').textContent()).resolves.toBe('4 devices');
    await shot('fleet');
  });

  test('a unit reporting over TCP moves its marker within seconds through the live stream, without a reload', async () => {
    await page.evaluate(() => ((window as unknown as { samePage: boolean }).samePage = true));
    // While the stream is up the page polls once a minute: the move below can only come from the stream.
    await page.waitForFunction(() => (window as unknown as { fleetView: { live(): boolean } }).fleetView.live());
    // 20 seconds and 340 metres on from the last fix: a plausible drive, not a GPS jump.
    await report(van, { lat: 52.52, lng: 13.41, speed: 72, heading: 135, at: NOW });
    await page.waitForFunction(
      (id) => {
        const m = (window as unknown as { fleetView: { markers(): Map<string, { getLatLng(): { lng: number } }> } }).fleetView.markers().get(id);
        return m !== undefined && Math.abs(m.getLatLng().lng - 13.41) < 1e-4;
      },
      van.id!,
      { timeout: 4000 },
    );
    const moved = (await markers())[van.id!]!;
    expect(moved).toMatchObject({ lat: expect.closeTo(52.52, 4), look: 'fleet-marker fleet-marker-moving', turn: 'rotate(135deg)' });
    expect(await page.evaluate(() => (window as unknown as { samePage?: boolean }).samePage)).toBe(true);
  });

  test('a list entry opens the unit’s popup from the keyboard: name, speed, last update, telemetry, links', async () => {
    await page.getByRole('button', { name: /^Van 1: Moving, 72 km\/h/ }).focus();
    await page.keyboard.press('Enter');
    const popup = page.locator('.leaflet-popup-content .fleet-popup');
    // The stream moved the marker; the telemetry (the odometer) comes with the poll that follows within seconds.
    await popup.getByText('0.3 km').waitFor({ timeout: 8000 });
    const facts = await popup.locator('dl > div').evaluateAll((rows) => rows.map((r) => [r.querySelector('dt')!.textContent, r.querySelector('dd')!.textContent]));
    expect(facts).toEqual([
      ['Status', 'Moving'],
      ['Speed', '72 km/h'],
      ['Last update', expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC \(just now\)$/)],
      ['Ignition', 'On'],
      // The tracker counts the distance driven between the two fixes.
      ['Odometer', '0.3 km'],
    ]);
    await expect(popup.locator('strong').textContent()).resolves.toBe('Van 1');
    await expect(popup.getByRole('link', { name: 'Device page' }).getAttribute('href')).resolves.toBe(`/dashboard/devices/${van.id}`);
    await expect(popup.getByRole('link', { name: 'Track' }).getAttribute('href')).resolves.toBe(`/dashboard/devices/${van.id}/track`);
    await shot('fleet-popup');
    await page.keyboard.press('Escape');
  });

  test('the search filters the list and the markers', async () => {
    await page.getByLabel('Search devices').fill('TRUCK');
    await expect(page.locator('#fleet-list li:not([hidden]) .fleet-item-name').allTextContents()).resolves.toEqual(['Truck 2']);
    await expect(page.locator('#fleet-count').textContent()).resolves.toBe('1 of 4 devices match');
    await expect(page.locator('.leaflet-marker-pane .fleet-marker').count()).resolves.toBe(1);
    await page.getByLabel('Search devices').fill('359633100018003');
    await expect(page.locator('#fleet-list li:not([hidden]) .fleet-item-name').allTextContents()).resolves.toEqual(['Car 3']);
    await page.getByLabel('Search devices').fill('');
    await expect(page.locator('.leaflet-marker-pane .fleet-marker').count()).resolves.toBe(3);
  });

  test('at phone width the list sits above the map, without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot('fleet-phone');
    await page.setViewportSize({ width: 1280, height: 860 });
    expect(problems).toEqual([]);
  });
  test('a popup’s track link shows the unit’s track on the map, from start to end', async () => {
    await page.getByRole('button', { name: /^Van 1: Moving/ }).click();
    await page.locator('.leaflet-popup-content').getByRole('link', { name: 'Track' }).click();
    await page.waitForURL(new RegExp(`/dashboard/devices/${van.id}/track`));
    await page.waitForFunction(() => (window as unknown as { trackView?: { start: unknown } }).trackView?.start != null);
    const drawn = await page.evaluate(() => {
      const v = (window as unknown as { trackView: { drawn(): number; start: { getLatLng(): unknown }; end: { getLatLng(): unknown } } }).trackView;
      return { points: v.drawn(), start: v.start.getLatLng(), end: v.end.getLatLng() };
    });
    expect(drawn).toEqual({ points: 2, start: { lat: expect.closeTo(52.52, 4), lng: expect.closeTo(13.405, 4) }, end: { lat: expect.closeTo(52.52, 4), lng: expect.closeTo(13.41, 4) } });
    await expect(page.locator('#figure-notice').textContent()).resolves.toBe('The map background could not be loaded; the track is still shown.');
    await shot('track-map');
  });

  test('a geofence’s page draws it on the map', async () => {
    await page.getByRole('link', { name: 'Geofences' }).click();
    await page.getByRole('link', { name: 'Munich yard' }).click();
    await page.waitForFunction(() => 'geofenceView' in window);
    const circle = await page.evaluate(() => {
      const layer = (window as unknown as { geofenceView: { layer: { getLatLng(): unknown; getRadius(): number } } }).geofenceView.layer;
      return { centre: layer.getLatLng(), radius: layer.getRadius() };
    });
    expect(circle).toEqual({ centre: { lat: 48.137, lng: 11.575 }, radius: 40_000 });
    await expect(page.locator('#figure-notice').textContent()).resolves.toBe('The map background could not be loaded; the geofence is still shown.');
    await shot('geofence-map');
    expect(problems).toEqual([]);
  });
});

describe('the fleet view’s data', () => {
  test('needs a session, and holds only the account’s own units', async () => {
    const anonymous = await new FormClient(stack.url).get('/dashboard/fleet.json');
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe('/dashboard/login?next=%2Fdashboard%2Ffleet.json');
    const owner = await signIn(stack, 'owner@northern.example', PASSWORD);
    const res = await owner.get('/dashboard/fleet.json');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const { devices } = JSON.parse(res.text) as { devices: { name: string; status: string; position: unknown; telemetry: Record<string, { value: unknown }> }[] };
    expect(devices.map((d) => d.name).sort()).toEqual(['Car 3', 'Spare 4', 'Truck 2', 'Van 1']);
    expect(devices.find((d) => d.name === 'Van 1')).toMatchObject({ status: 'online', speed: 72, heading: 135, position: { lat: expect.closeTo(52.52, 4), lng: expect.closeTo(13.41, 4) }, telemetry: { ignition: { value: true } } });
    expect(devices.find((d) => d.name === 'Spare 4')).toMatchObject({ status: 'offline', position: null, lastUpdate: null, telemetry: {} });
  });

  test('the live stream needs a session, shows the account’s own positions, and ends at sign-out', async () => {
    const anonymous = await new FormClient(stack.url).get('/dashboard/stream');
    expect(anonymous.status).toBe(303);
    const owner = await signIn(stack, 'owner@northern.example', PASSWORD);
    await owner.get('/dashboard/devices');
    const cookie = [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const stream = await SseClient.open(`${stack.url}/dashboard/stream`, null, { cookie });
    expect(stream.status).toBe(200);
    expect(stream.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await report(car, { lat: 48.14, lng: 11.58, speed: 12, heading: 10, at: Date.now() });
    await stream.until(() => stream.named('position').length > 0);
    expect(stream.named('position')[0]!.data).toMatchObject({ deviceId: car.id, lat: expect.closeTo(48.14, 4), lng: expect.closeTo(11.58, 4) });
    expect(await owner.post('/dashboard/logout', {})).toMatchObject({ status: 303 });
    await stream.until(() => stream.ended);
    expect(stream.named('cutoff').map((e) => e.data.reason)).toEqual(['signed_out']);
  });
});
