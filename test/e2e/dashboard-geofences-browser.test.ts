// Geofences drawn on the map in a real browser (Debian's Chromium, driven by playwright-core)
// through the gateway: the list's map shows every geofence of the account; a polygon drawn with
// mouse clicks and a circle drawn by its centre and edge fill the form, and once added the public
// API returns them with the drawn vertices; dragging a corner, or the circle's edge, on a
// geofence's page changes it; typing in the form redraws the shape; a polygon whose sides cross is
// marked and refused; the page fits a phone. Map tiles are unreachable, as offline. Screenshots land in
// test/artifacts/dashboard/.
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { runVerb } from '../../tracker/admin/verbs.js';
import { createGeofence } from '../../tracker/geofences/repository.js';
import { launchChromium, signedInPage } from '../helpers/browser.js';
import { account, createOwner, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';

const ARTIFACTS = join('test', 'artifacts', 'dashboard');
const PASSWORD = 'a long and memorable passphrase';

interface LatLng {
  lat: number;
  lng: number;
}
type Shape = { type: 'circle'; center: LatLng; radius: number } | { type: 'polygon'; points: LatLng[] };
interface ApiGeofence {
  id: string;
  name: string;
  shape: Shape;
}

let stack: DashboardStack;
let browser: Browser;
let page: Page;
let token: string;
const problems: string[] = [];

/** The account's geofences as the public API returns them. */
async function apiGeofences(): Promise<ApiGeofence[]> {
  const res = await fetch(`${stack.url}/api/public/v1/geofences`, { headers: { Authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: ApiGeofence[] }).data;
}
const apiGeofence = async (name: string) => (await apiGeofences()).find((g) => g.name === name)!;

type View = {
  map: { latLngToContainerPoint(p: LatLng): { x: number; y: number }; containerPointToLatLng(p: [number, number]): LatLng };
  layer: { getLatLngs(): LatLng[][]; getLatLng(): LatLng; getRadius(): number };
  handles(): { getLatLng(): LatLng }[];
  others(): unknown[];
};

/** Where a place is on the map, in pixels from its top left corner. */
const onMap = (p: LatLng) => page.evaluate((p) => (window as unknown as { geofenceView: View }).geofenceView.map.latLngToContainerPoint(p), p);

/** Where a place is on the page, in pixels. */
async function pixel(p: LatLng): Promise<{ x: number; y: number }> {
  const box = (await page.locator('#figure-map').boundingBox())!;
  const point = await onMap(p);
  return { x: box.x + point.x, y: box.y + point.y };
}

/** Clicks the map at a pixel from its top left corner. */
async function clickMap(x: number, y: number): Promise<void> {
  const box = (await page.locator('#figure-map').boundingBox())!;
  await page.mouse.click(box.x + x, box.y + y);
}

/** Whether a place lies within a pixel and a half of a point of the map (the mouse's rounding). */
async function near(p: LatLng, [x, y]: readonly [number, number]): Promise<boolean> {
  const at = await onMap(p);
  return Math.hypot(at.x - x, at.y - y) < 1.5;
}

const six = (p: LatLng) => ({ lat: Number(p.lat.toFixed(6)), lng: Number(p.lng.toFixed(6)) });

const handles = () => page.evaluate(() => (window as unknown as { geofenceView: View }).geofenceView.handles().map((h) => h.getLatLng()));

async function drag(from: LatLng, dx: number, dy: number): Promise<void> {
  const start = await pixel(from);
  await page.mouse.move(start.x, start.y);
  await page.mouse.down();
  await page.mouse.move(start.x + dx, start.y + dy, { steps: 8 });
  await page.mouse.up();
}

/** The "lat,lng" lines a polygon's corners are written as. */
const lines = (points: LatLng[]) => points.map(six).map((p) => `${p.lat},${p.lng}`).join('\n');

async function shot(name: string): Promise<void> {
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startDashboardStack();
  const fleet = await account(stack, 'Spree Logistics');
  await createOwner(stack, fleet, 'owner@spree.example', PASSWORD);
  token = ((await runVerb(stack.tracker.ctx, 'tokens create', { account: fleet, scopes: 'read' })) as { token: string }).token;
  const db = stack.tracker.ctx.db;
  await createGeofence(db, fleet, { name: 'Westhafen', description: '', shape: { type: 'polygon', points: [{ lat: 52.545, lng: 13.33 }, { lat: 52.545, lng: 13.35 }, { lat: 52.535, lng: 13.35 }, { lat: 52.535, lng: 13.33 }, { lat: 52.545, lng: 13.33 }] } });
  await createGeofence(db, fleet, { name: 'Tempelhof yard', description: '', shape: { type: 'circle', center: { lat: 52.473, lng: 13.403 }, radius: 1500 } });
  // Another account's geofence, which the map must never show.
  await createGeofence(db, await account(stack, 'Rival'), { name: 'Rival depot', description: '', shape: { type: 'circle', center: { lat: 52.5, lng: 13.4 }, radius: 900 } });

  browser = await launchChromium();
  page = await signedInPage(browser, stack.url, { email: 'owner@spree.example', password: PASSWORD }, { problems, height: 900 });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

describe('geofences on the map', () => {
  test('the list’s map shows every geofence of the account, and the drawing tools are labelled buttons', async () => {
    await page.getByRole('link', { name: 'Geofences' }).click();
    await page.waitForFunction(() => 'geofenceView' in window);
    expect(await page.evaluate(() => (window as unknown as { geofenceView: View }).geofenceView.others().length)).toBe(2);
    await expect(page.locator('.leaflet-overlay-pane path.leaflet-interactive').count()).resolves.toBe(2);
    await expect(page.getByRole('region', { name: 'Map of the geofences' }).isVisible()).resolves.toBe(true);
    const toolbar = page.getByRole('toolbar', { name: 'Drawing tools' });
    await expect(toolbar.getByRole('button').allTextContents()).resolves.toEqual(['Draw a polygon', 'Draw a circle']);
    await expect(page.locator('#figure-notice').textContent()).resolves.toBe('The map background could not be loaded; the geofences are still shown.');
    // From the keyboard: the first tool is reached by Tab and pressed with Enter; Escape ends the drawing.
    await page.locator('#main').focus();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Draw a polygon');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'Draw a polygon' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await page.keyboard.press('Escape');
    await expect(page.getByRole('button', { name: 'Draw a polygon' }).getAttribute('aria-pressed')).resolves.toBe('false');
    await expect(page.locator('#geofence-status').textContent()).resolves.toBe('Drawing cancelled.');
    await shot('geofences-map');
  });

  test('a polygon drawn with the mouse is added, and the API returns it with the drawn vertices', async () => {
    await page.getByRole('button', { name: 'Draw a polygon' }).click();
    // Four corners, the first over an existing geofence (a click there places a corner too), then the first again to close.
    const over = await onMap({ lat: 52.54, lng: 13.34 });
    const [x, y] = [Math.round(over.x), Math.round(over.y)];
    const corners = [[x, y], [x + 250, y + 20], [x + 280, y + 200], [x - 30, y + 180]] as const;
    for (const [cx, cy] of corners) await clickMap(cx, cy);
    await expect(page.locator('#geofence-status').textContent()).resolves.toBe('4 corners placed.');
    await clickMap(x, y);
    await expect(page.locator('#geofence-status').textContent()).resolves.toBe('Polygon of 4 corners.');
    // The corners lie where the mouse clicked; the form took the polygon: its choice, and its corners to six decimals.
    const drawn = await handles();
    expect(drawn).toHaveLength(4);
    for (const [i, corner] of drawn.entries()) expect(await near(corner, corners[i]!)).toBe(true);
    await expect(page.getByLabel('Polygon').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Radius (metres)').isVisible()).resolves.toBe(false);
    await expect(page.getByRole('textbox', { name: 'Corners' }).inputValue()).resolves.toBe(lines(drawn));
    await page.getByLabel('Name', { exact: true }).fill('Drawn depot');
    await shot('geofence-drawn');
    await page.getByRole('button', { name: 'Add geofence' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Geofence added.');

    const saved = await apiGeofence('Drawn depot');
    expect(saved.shape).toEqual({ type: 'polygon', points: [...drawn, drawn[0]!].map(six) });
  });

  test('dragging a corner on the geofence’s page moves that vertex', async () => {
    await page.waitForFunction(() => 'geofenceView' in window);
    await expect(page.getByRole('region', { name: 'Map of Drawn depot' }).isVisible()).resolves.toBe(true);
    const before = (await apiGeofence('Drawn depot')).shape as { points: LatLng[] };
    const [, second] = await handles();
    await drag(second!, 60, -40);
    const after = (await handles())[1]!;
    expect(after.lng).toBeGreaterThan(second!.lng);
    expect(after.lat).toBeGreaterThan(second!.lat);
    await expect(page.getByRole('textbox', { name: 'Corners' }).inputValue()).resolves.toBe(lines([before.points[0]!, after, before.points[2]!, before.points[3]!]));
    await shot('geofence-dragged');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Changes saved.');
    const moved = ((await apiGeofence('Drawn depot')).shape as { points: LatLng[] }).points;
    expect(moved).toEqual([before.points[0], six(after), ...before.points.slice(2)]);
  });

  test('a circle drawn by its centre and edge is added; dragging its edge changes the radius', async () => {
    await page.getByRole('link', { name: '← All geofences' }).click();
    await page.waitForFunction(() => 'geofenceView' in window);
    await page.getByRole('button', { name: 'Draw a circle' }).click();
    const box = (await page.locator('#figure-map').boundingBox())!;
    const [x, y] = [Math.round(box.width * 0.75), 150];
    await clickMap(x, y);
    await expect(page.locator('#geofence-status').textContent()).resolves.toBe('Centre placed: click at the edge.');
    await clickMap(x + 100, y);
    const [rim, centre] = (await handles()) as [LatLng, LatLng];
    expect(await near(centre, [x, y])).toBe(true);
    expect(await near(rim, [x + 100, y])).toBe(true);
    const radius = await page.evaluate(() => (window as unknown as { geofenceView: View }).geofenceView.layer.getRadius());
    await expect(page.getByLabel('Circle').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Latitude of the centre').inputValue()).resolves.toBe(String(six(centre).lat));
    await expect(page.getByLabel('Longitude of the centre').inputValue()).resolves.toBe(String(six(centre).lng));
    await expect(page.getByLabel('Radius (metres)').inputValue()).resolves.toBe(String(Math.round(radius)));
    await page.getByLabel('Name', { exact: true }).fill('Drawn circle');
    await page.getByRole('button', { name: 'Add geofence' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Geofence added.');
    expect((await apiGeofence('Drawn circle')).shape).toEqual({ type: 'circle', center: six(centre), radius: Math.round(radius) });

    await page.waitForFunction(() => 'geofenceView' in window);
    await drag((await handles())[0]!, 50, 0);
    const wider = Number(await page.getByLabel('Radius (metres)').inputValue());
    expect(wider).toBeGreaterThan(Math.round(radius) * 1.2);
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect(page.getByRole('status').first().textContent()).resolves.toContain('Changes saved.');
    expect((await apiGeofence('Drawn circle')).shape).toMatchObject({ type: 'circle', radius: wider });
    await shot('geofence-circle');
  });

  test('typing in the form redraws the shape; a polygon whose sides cross is marked and refused', async () => {
    await page.getByRole('link', { name: '← All geofences' }).click();
    await page.waitForFunction(() => 'geofenceView' in window);
    await page.getByLabel('Polygon').check();
    await page.getByLabel('Name', { exact: true }).fill('Bow tie');
    await page.getByRole('textbox', { name: 'Corners' }).fill('52.50,13.30\n52.50,13.32\n52.51,13.31');
    const drawn = () => page.evaluate(() => (window as unknown as { geofenceView: View }).geofenceView.layer.getLatLngs()[0]!.map((p) => [p.lat, p.lng]));
    await expect(drawn()).resolves.toEqual([[52.5, 13.3], [52.5, 13.32], [52.51, 13.31]]);
    // Its sides cross: the second and fourth corners are swapped.
    await page.getByRole('textbox', { name: 'Corners' }).fill('52.50,13.30\n52.51,13.32\n52.50,13.32\n52.51,13.30');
    await expect(drawn()).resolves.toEqual([[52.5, 13.3], [52.51, 13.32], [52.5, 13.32], [52.51, 13.3]]);
    // Leaving the field says what the map shows, and the crossing is drawn in red.
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => (window as unknown as { geofenceView: { layer: { options: { color: string } } } }).geofenceView.layer.options.color)).resolves.toBe('#b3261e');
    await expect(page.locator('#geofence-status').textContent()).resolves.toBe('The polygon’s sides cross: move a corner so that they do not, or it cannot be saved.');
    expect(problems).toEqual([]);
    await page.getByRole('button', { name: 'Add geofence' }).click();
    await expect(page.locator('.error-summary').textContent()).resolves.toContain('crosses itself');
    // The browser logs the refusal's status, and nothing else.
    expect(problems).toEqual(['Failed to load resource: the server responded with a status of 400 (Bad Request)']);
    expect((await apiGeofences()).map((g) => g.name)).not.toContain('Bow tie');
    // The page came back with what was typed, drawn.
    await page.waitForFunction(() => 'geofenceView' in window);
    await expect(drawn()).resolves.toEqual([[52.5, 13.3], [52.51, 13.32], [52.5, 13.32], [52.51, 13.3]]);
    await shot('geofence-crossing');
    // At phone width the tools wrap above the map, without sideways scrolling.
    await page.setViewportSize({ width: 375, height: 740 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot('geofences-phone');
  });
});
