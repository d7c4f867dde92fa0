// The track page's replay in a real browser (Debian's Chromium, driven by playwright-core) through
// the gateway: a GT06 unit reports a drive, a stop and a drive over TCP; its track page shows the
// track's position count, the trip and the stop (found by the reports' code) marked on the map,
// plays the replay (the marker moves, keyboard and screen-reader names included) and pages the
// position table, whose rows centre the map. A track of a few hundred thousand positions comes
// simplified for the map's zoom and view, quickly and small, and stays smooth while it plays and
// pans (frame times from requestAnimationFrame). Screenshots land in test/artifacts/dashboard/.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { runVerb } from '../../tracker/admin/verbs.js';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { launchChromium, signedInPage } from '../helpers/browser.js';
import { account, createOwner, signIn, startDashboardStack, type DashboardStack, type FormClient } from '../helpers/dashboard.js';
import { DeviceClient } from '../helpers/device-client.js';

const ARTIFACTS = join('test', 'artifacts', 'dashboard');
const PASSWORD = 'a long and memorable passphrase';
const EMAIL = 'owner@replay.example';
/** The drive's day: 40 reports 30 s apart eastwards, 30 parked, 40 more northwards. */
const DAY = Date.UTC(2026, 10, 20, 8, 0);
const BIG = 200_000;

let stack: DashboardStack;
let browser: Browser;
let page: Page;
let owner: FormClient;
let van = '';
let hauler = '';
const problems: string[] = [];

type Window = {
  trackView: {
    map: { getCenter(): { lat: number; lng: number }; getZoom(): number; panBy(offset: [number, number], options: object): void };
    start: { getLatLng(): { lat: number; lng: number } } | null;
    end: { getLatLng(): { lat: number; lng: number } } | null;
    marker: { getLatLng(): { lat: number; lng: number } } | null;
    drawn(): number;
    state(): { at: number; playing: boolean };
  };
};

async function shot(name: string): Promise<void> {
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

const trackUrl = (id: string, from: string, to: string) => `/dashboard/devices/${id}/track?from=${from}&to=${to}`;
const ready = () => page.waitForFunction(() => (window as unknown as Window).trackView?.start != null && document.querySelector('#positions-rows tr') !== null);
const marker = () => page.evaluate(() => (window as unknown as Window).trackView.marker!.getLatLng());

/** requestAnimationFrame intervals (ms) over `ms` while `drive` runs in the page. */
async function frameTimes(ms: number, drive: 'play' | 'pan'): Promise<{ p50: number; p95: number; max: number; frames: number }> {
  return page.evaluate(
    ([duration, how]) =>
      new Promise((resolve) => {
        const deltas: number[] = [];
        const view = (window as unknown as Window).trackView;
        let last: number | null = null;
        const began = performance.now();
        const tick = (now: number) => {
          if (last !== null) deltas.push(now - last);
          last = now;
          if (how === 'pan') view.map.panBy([deltas.length % 60 < 30 ? 12 : -12, 6], { animate: false });
          if (now - began < duration) return void requestAnimationFrame(tick);
          deltas.sort((a, b) => a - b);
          const at = (q: number) => Math.round(deltas[Math.min(deltas.length - 1, Math.floor(q * deltas.length))]! * 10) / 10;
          resolve({ p50: at(0.5), p95: at(0.95), max: at(1), frames: deltas.length });
        };
        requestAnimationFrame(tick);
      }),
    [ms, drive] as const,
  );
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startDashboardStack();
  const fleet = await account(stack, 'Replay Haulage');
  van = ((await runVerb(stack.tracker.ctx, 'devices add', { account: fleet, imei: '359633100019001', name: 'Van 1' })) as { id: string }).id;
  hauler = ((await runVerb(stack.tracker.ctx, 'devices add', { account: fleet, imei: '359633100019002', name: 'Long hauler' })) as { id: string }).id;
  await createOwner(stack, fleet, EMAIL, PASSWORD);

  // Over TCP, as the unit would: 40 km/h east for 20 minutes, parked for a quarter of an hour, 20 minutes more.
  const unit = await DeviceClient.open(stack.tracker.ingest.ports.device!);
  let serial = 1;
  unit.send(gt06Login('359633100019001', serial++));
  await unit.read(10);
  let lng = 13.3;
  for (let i = 0; i < 110; i++) {
    const parked = i >= 40 && i < 70;
    if (!parked && i > 0 && i < 70) lng += 0.0049; // 330 m at 52.5° N
    unit.send(gt06Position({ time: new Date(DAY + i * 30_000), lat: 52.5 + (i >= 70 ? 0.002 * (i - 70) : 0), lng, speed: parked ? 0 : 40, heading: 90, satellites: 9 }, { ignition: !parked }, serial++));
    await unit.read(10);
  }
  unit.close();

  // A long hauler's 200,000 positions, 5 s apart (12 days), wandering over northern Germany.
  await stack.tracker.ctx.db.query(
    `INSERT INTO positions (device_id, device_time, valid, lat, lng, speed, heading)
     SELECT $1, $2::timestamptz + g * interval '5 seconds', true, 53 + 0.6 * sin(g / 7000.0) + 0.01 * sin(g / 37.0), 10 + 1.5 * sin(g / 11000.0) + 0.01 * cos(g / 41.0), 60, 90
     FROM generate_series(0, $3::int - 1) g`,
    [hauler, new Date(Date.UTC(2026, 10, 1)).toISOString(), BIG],
  );

  owner = await signIn(stack, EMAIL, PASSWORD);
  browser = await launchChromium();
  page = await signedInPage(browser, stack.url, { email: EMAIL, password: PASSWORD }, { problems, height: 900 });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('the replay', () => {
  test('shows the track’s position count, its start and end, and the trip and stop marked', async () => {
    await page.goto(`${stack.url}${trackUrl(van, '2026-11-20T07:00', '2026-11-20T10:00')}`);
    await ready();
    await expect(page.locator('#track-count').textContent()).resolves.toMatch(/^110 positions, \d+ drawn at this zoom$/);
    const drawn = await page.evaluate(() => (window as unknown as Window).trackView.drawn());
    expect(drawn).toBeGreaterThan(2);
    expect(drawn).toBeLessThanOrEqual(110);
    const ends = await page.evaluate(() => ({ start: (window as unknown as Window).trackView.start!.getLatLng(), end: (window as unknown as Window).trackView.end!.getLatLng() }));
    expect(ends.start).toEqual({ lat: expect.closeTo(52.5, 4), lng: expect.closeTo(13.3, 4) });
    expect(ends.end.lat).toBeCloseTo(52.5 + 0.002 * 39, 4);
    // The reports' trips and stops: a drive with a quarter of an hour parked in it is two trips and one stop.
    await expect(page.locator('figcaption').textContent()).resolves.toMatch(/2 trips\s+1 stop\s/);
    const tooltips = await page.evaluate(() => {
      const found: string[] = [];
      (window as unknown as { trackView: { map: { eachLayer(f: (l: { getTooltip?(): { getContent(): string } | undefined }) => void): void } } }).trackView.map.eachLayer((l) => {
        const t = l.getTooltip?.();
        if (t) found.push(t.getContent());
      });
      return found;
    });
    expect(tooltips).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^Trip 1: 2026-11-20 08:00:00 UTC to 2026-11-20 08:20:00 UTC, 1\d\.\d km, up to 40 km\/h$/),
        expect.stringMatching(/^Trip 2: 2026-11-20 08:34:30 UTC to 2026-11-20 08:54:30 UTC, /),
        expect.stringMatching(/^Stop: 2026-11-20 08:20:00 UTC to 2026-11-20 08:34:30 UTC \(15 min\)$/),
      ]),
    );
    await shot('replay');
  });

  test('plays: the marker moves along the track, and pauses from the keyboard', async () => {
    const before = await marker();
    const play = page.getByRole('button', { name: 'Play the replay' });
    await page.getByLabel('Speed').selectOption('600');
    await play.focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (window as unknown as Window).trackView.state().playing);
    await page.waitForTimeout(800);
    const pause = page.getByRole('button', { name: 'Pause the replay' });
    await pause.focus();
    await page.keyboard.press('Space');
    const { at, playing } = await page.evaluate(() => (window as unknown as Window).trackView.state());
    expect(playing).toBe(false);
    // 600 s of track per second: after about a second, some minutes into the drive, further east.
    expect(at * 1000 - DAY).toBeGreaterThan(60_000);
    const after = await marker();
    expect(after.lng).toBeGreaterThan(before.lng);
    // The slider names the replay's moment for screen readers, and moves from the keyboard.
    const slider = page.getByRole('slider', { name: 'Position in the track' });
    await expect(slider.getAttribute('aria-valuetext')).resolves.toMatch(/^2026-11-20 08:\d\d:\d\d UTC, \d+ km\/h$/);
    await slider.focus();
    await page.keyboard.press('End');
    await expect(page.locator('#replay-time').textContent()).resolves.toMatch(/^2026-11-20 08:54:30 UTC, 40 km\/h$/);
    const last = await marker();
    expect(last.lat).toBeCloseTo(52.5 + 0.002 * 39, 4);
    await shot('replay-played');
  });

  test('the position table pages, and a row centres the map on its position', async () => {
    const rows = page.locator('#positions-rows tr');
    await expect(rows.count()).resolves.toBe(50);
    await expect(page.locator('#positions-page').textContent()).resolves.toBe('Page 1 of 3');
    const next = page.getByRole('button', { name: 'Next', exact: true });
    await next.click({ timeout: 5000 });
    await page.getByRole('button', { name: '2026-11-20 08:25:00 UTC: show on the map' }).waitFor({ timeout: 5000 });
    await next.click({ timeout: 5000 });
    await page.getByRole('button', { name: '2026-11-20 08:50:00 UTC: show on the map' }).waitFor({ timeout: 5000 });
    await expect(page.locator('#positions-page').textContent()).resolves.toBe('Page 3 of 3');
    await expect(rows.count()).resolves.toBe(10);
    await expect(next.isDisabled()).resolves.toBe(true);
    const previous = page.getByRole('button', { name: 'Previous', exact: true });
    await previous.click({ timeout: 5000 });
    await page.getByRole('button', { name: '2026-11-20 08:25:00 UTC: show on the map' }).waitFor({ timeout: 5000 });
    await previous.click({ timeout: 5000 });
    const row = page.getByRole('button', { name: '2026-11-20 08:10:00 UTC: show on the map' });
    await row.focus({ timeout: 5000 });
    await page.keyboard.press('Enter');
    // The map zooms in to the row's position (animated): its centre is read once it has settled there.
    const target = 13.3 + 20 * 0.0049;
    await page
      .waitForFunction((lng) => Math.abs((window as unknown as Window).trackView.map.getCenter().lng - lng) < 1e-4, target, { timeout: 5000 })
      .catch(() => undefined);
    const centre = await page.evaluate(() => (window as unknown as Window).trackView.map.getCenter());
    expect(centre).toEqual({ lat: expect.closeTo(52.5, 4), lng: expect.closeTo(target, 4) });
    await expect(page.locator('#replay-time').textContent()).resolves.toBe('2026-11-20 08:10:00 UTC, 40 km/h');
    await shot('replay-table');
    expect(problems).toEqual([]);
  });
});

describe('a long track', () => {
  const from = '2026-11-01T00:00';
  const to = '2026-11-30T00:00';

  test(`${BIG.toLocaleString('en-GB')} positions come simplified for the zoom and the view, quickly and small`, async () => {
    const json = `/dashboard/devices/${hauler}/track.json?from=${from}&to=${to}`;
    let began = Date.now();
    const whole = await owner.get(`${json}&zoom=8`);
    const wholeMs = Date.now() - began;
    expect(whole.status).toBe(200);
    const detail = JSON.parse(whole.text) as { cell: number; parts: [number, number, number, number][][] };
    const points = detail.parts.flat().length;
    expect(detail.parts).toHaveLength(1);
    expect(points).toBeGreaterThan(500);
    expect(points).toBeLessThanOrEqual(5000);
    expect(whole.text.length).toBeLessThan(250_000);
    expect(detail.parts[0]![0]![2]).toBe(Date.UTC(2026, 10, 1) / 1000);
    expect(detail.parts[0]!.at(-1)![2]).toBe(Date.UTC(2026, 10, 1) / 1000 + (BIG - 1) * 5);
    // Zoomed in on a corner of it: only what lies there (and the neighbours just outside), in parts.
    began = Date.now();
    const zoomed = JSON.parse((await owner.get(`${json}&zoom=13&west=9.95&south=52.95&east=10.05&north=53.05`)).text) as typeof detail;
    const zoomedMs = Date.now() - began;
    expect(zoomed.parts.flat().length).toBeLessThan(points);
    expect(zoomed.parts.length).toBeGreaterThanOrEqual(1);
    for (const part of zoomed.parts) for (const [lat, lng] of part.slice(1, -1)) expect([lat >= 52.9 && lat <= 53.1, lng >= 9.9 && lng <= 10.1]).toEqual([true, true]);
    console.log(`track.json for ${BIG} positions: whole at zoom 8 ${wholeMs} ms, ${points} points, ${whole.text.length} bytes; zoom 13 view ${zoomedMs} ms, ${zoomed.parts.flat().length} points`);
    expect(wholeMs).toBeLessThan(15_000);
  }, 60_000);

  test('refuses bad queries without reading anything, and other accounts’ units', async () => {
    const base = `/dashboard/devices/${hauler}/track.json?from=${from}&to=${to}`;
    for (const bad of ['&zoom=23', '&zoom=x', '', '&zoom=5&west=1', '&zoom=5&west=1&south=10&east=2&north=5', '&zoom=5&west=200&south=1&east=2&north=3']) {
      const res = await owner.get(`${base}${bad}`);
      expect([bad, res.status]).toEqual([bad, 400]);
      expect(JSON.parse(res.text)).toEqual({ error: expect.any(String) });
    }
    const long = await owner.get(`/dashboard/devices/${hauler}/track.json?from=2026-01-01T00:00&to=2026-04-02T00:00&zoom=5`);
    expect(JSON.parse(long.text)).toEqual({ error: 'the period may span at most 90 days' });
    expect((await owner.get(`/dashboard/devices/${hauler}/positions.json?from=${from}&to=${to}&page=0`)).status).toBe(400);
    const other = await account(stack, 'Rival');
    const theirs = ((await runVerb(stack.tracker.ctx, 'devices add', { account: other, imei: '359633100019099', name: 'Rival van' })) as { id: string }).id;
    expect((await owner.get(`/dashboard/devices/${theirs}/track.json?from=${from}&to=${to}&zoom=5`)).status).toBe(404);
    expect((await owner.get(`/dashboard/devices/${theirs}/positions.json?from=${from}&to=${to}&page=1`)).status).toBe(404);
  });

  test('stays smooth in the browser while it plays and pans', async () => {
    await page.goto(`${stack.url}${trackUrl(hauler, from, to)}`);
    await ready();
    await expect(page.locator('#track-count').textContent()).resolves.toMatch(/^200,000 positions, [\d,]+ drawn at this zoom$/);
    await page.getByLabel('Speed').selectOption('86400');
    await page.getByRole('button', { name: 'Play the replay' }).click();
    const playing = await frameTimes(3000, 'play');
    await page.getByRole('button', { name: 'Pause the replay' }).click();
    const panning = await frameTimes(3000, 'pan');
    console.log(`frame times with ${BIG} positions: playing ${JSON.stringify(playing)}, panning ${JSON.stringify(panning)}`);
    // Lenient on a shared machine: smooth is about 16 ms; this only catches a page that chokes.
    expect(playing.p50).toBeLessThan(100);
    expect(panning.p50).toBeLessThan(100);
    await shot('replay-long');
    expect(problems).toEqual([]);
  }, 60_000);
});
