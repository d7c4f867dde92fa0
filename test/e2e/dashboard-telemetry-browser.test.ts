// A device page's telemetry panel in a real browser (Debian's Chromium, driven by playwright-core)
// against real gateway and tracker processes: what an OsmAnd phone reported shows as labelled values
// with units and their age, the alarms newest first; markup in nothing, no console errors (CSP).
// Screenshots at desktop and phone widths are kept in test/artifacts/dashboard-telemetry/.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, watchPage } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

const ARTIFACTS = join('test', 'artifacts', 'dashboard-telemetry');
const PASSWORD = 'a long and memorable passphrase';
const IMEI = '359633100009501';

let stack: Stack;
let base: string;
let browser: Browser;
let page: Page;
let deviceId: string;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await createStack();
  const gatewayPort = await freePort();
  base = `http://127.0.0.1:${gatewayPort}`;
  const env = { ...stack.trackerEnv, PUBLIC_BASE_URL: base };
  const tracker = await stack.startTracker(env);
  await startService('gateway/main.ts', { ...stack.gatewayEnv(tracker.port), GATEWAY_PORT: String(gatewayPort) }, { timeoutMs: 60_000 });
  const cli = async (...args: string[]) => JSON.parse((await runCli([...args, '--json'], env)).stdout) as Record<string, string>;
  const account = (await cli('accounts', 'create', '--name', 'Reefer fleet')).id!;
  deviceId = (await cli('devices', 'add', '--account', account, '--imei', IMEI, '--name', 'Reefer <b>7</b>')).id!;
  const { setPasswordUrl } = await cli('users', 'create', '--account', account, '--email', 'owner@reefer.example');

  // Reports from the phone: a fix three minutes ago, a power cut a minute later, then an SOS without a fix.
  const report = async (params: Record<string, string>) => {
    const res = await fetch(`http://127.0.0.1:${tracker.devicePorts.osmand!}/?${new URLSearchParams({ id: IMEI, ...params }).toString()}`, { method: 'POST' });
    expect(res.status).toBe(200);
  };
  const threeMinutesAgo = String(Math.floor(Date.now() / 1000) - 180);
  await report({ timestamp: threeMinutesAgo, lat: '52.52', lon: '13.405', power: '12.4', batt: '87', ignition: 'true', fuel: '41.5', fuelLevel: '62', odometer: '123456', hours: '9000000' });
  await report({ timestamp: String(Number(threeMinutesAgo) + 60), lat: '52.52', lon: '13.405', alarm: 'powerCut' });
  await report({ alarm: 'sos' });

  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  await watchPage(page, problems);
  await page.goto(setPasswordUrl!);
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the new password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(`${base}/dashboard/login?password=set`);
  await page.getByLabel('Email address').fill('owner@reefer.example');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/dashboard/devices`);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stopAllServices();
  await stack?.close();
});

test('the device page shows each value with its unit and age, and the last alarms', async () => {
  await page.goto(`${base}/dashboard/devices/${deviceId}`);
  const panel = page.getByRole('region', { name: 'Telemetry' });
  const value = (label: string) => panel.locator('dt', { hasText: new RegExp(`^${label}$`) }).locator('xpath=following-sibling::dd').textContent();
  await expect(value('External power')).resolves.toBe('12.4 V · 3 min ago');
  await expect(value('Battery level')).resolves.toBe('87 % · 3 min ago');
  await expect(value('Ignition')).resolves.toBe('On · 3 min ago');
  await expect(value('Fuel')).resolves.toBe('41.5 L · 3 min ago');
  await expect(value('Fuel level')).resolves.toBe('62 % · 3 min ago');
  // The tracker carried the counters on to the power cut's report.
  await expect(value('Odometer')).resolves.toBe('123.5 km · 2 min ago');
  await expect(value('Engine hours')).resolves.toBe('2.5 h · 2 min ago');
  // The age is a machine-readable time too.
  await expect(panel.locator('dd time').first().getAttribute('datetime')).resolves.toMatch(/^\d{4}-\d\d-\d\dT/);

  const alarms = page.getByRole('table', { name: 'Last alarms, newest first' });
  await expect(alarms.getByRole('row').allTextContents()).resolves.toEqual(['AlarmReported', 'sosjust now', 'powerCut2 min ago']);
  // The device's name is text, never markup.
  await expect(page.locator('h1').textContent()).resolves.toBe('Reefer <b>7</b>');
  await page.screenshot({ path: join(ARTIFACTS, 'device-telemetry.png'), fullPage: true });
  await page.setViewportSize({ width: 375, height: 740 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await page.screenshot({ path: join(ARTIFACTS, 'device-telemetry-phone.png'), fullPage: true });
  expect(problems).toEqual([]);
});
