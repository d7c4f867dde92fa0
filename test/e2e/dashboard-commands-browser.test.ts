// Sending commands from the device page in a real browser (Debian's Chromium, driven by
// playwright-core) against real gateway and tracker processes, to a simulated JT/T 808 unit on a
// real TCP connection that answers: the reporting interval and an engine stop (confirmed) come back
// delivered with the unit's answers in the list. Screenshots at desktop and phone widths are kept
// in test/artifacts/dashboard/.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { runVerb } from '../../tracker/admin/verbs.js';
import { SimulatedDevice } from '../../tracker/simulator/device.js';
import { launchChromium, watchPage } from '../helpers/browser.js';
import { eventually } from '../helpers/device-client.js';
import { freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

const ARTIFACTS = join('test', 'artifacts', 'dashboard');
const PASSWORD = 'a long and memorable passphrase';
const IMEI = '359633100009101';

let stack: Stack;
let base: string;
let browser: Browser;
let page: Page;
let sim: SimulatedDevice;
let unit: string;
let setPasswordUrl: string;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await createStack();
  const gatewayPort = await freePort();
  base = `http://127.0.0.1:${gatewayPort}`;
  // The unit's one report comes from a standing start with the simulator's speed jitter (up to
  // 5.5 km/h), which the default 5 km/h engine-stop limit would refuse now and then.
  const tracker = await stack.startTracker({ PUBLIC_BASE_URL: base, ENGINE_STOP_MAX_SPEED_KMH: '10' });
  await startService('gateway/main.ts', { ...stack.gatewayEnv(tracker.port), GATEWAY_PORT: String(gatewayPort) }, { timeoutMs: 60_000 });
  const account = await stack.account('Acme Logistics');
  unit = await stack.device(account, IMEI);
  // The link as printed, opened on this gateway.
  const link = new URL(((await runVerb(stack.admin, 'users create', { account, email: 'owner@acme.example' })) as { setPasswordUrl: string }).setPasswordUrl);
  setPasswordUrl = `${base}${link.pathname}${link.search}`;
  sim = new SimulatedDevice('jt808', IMEI, { lat: 52.52, lng: 13.405, heading: 0, speed: 0 }, { host: '127.0.0.1', devicePort: tracker.devicePorts.device!, osmandPort: 0 });
  await sim.connect();
  await sim.tick(0);
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
  // The unconfirmed engine stop is answered 400 on purpose; any other console error is a problem.
  await watchPage(page, problems);
}, 180_000);

afterAll(async () => {
  sim?.close();
  await browser?.close();
  await stopAllServices();
  await stack?.close();
});

/** The device page, reloaded until the newest command has come to `status`. */
async function newestBecomes(status: string): Promise<string> {
  return eventually(
    async () => {
      await page.goto(`${base}/dashboard/devices/${unit}`);
      return (await page.locator('section:has(#device-commands) tbody tr').first().textContent()) ?? '';
    },
    (row) => row.includes(status),
  );
}

test('the owner sends the reporting interval and a confirmed engine stop; both come back delivered', async () => {
  await page.goto(setPasswordUrl);
  await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
  await page.getByLabel('Repeat the new password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Set password' }).click();
  await page.waitForURL(/\/dashboard\/login/);
  await page.getByLabel('Email address').fill('owner@acme.example');
  await page.getByLabel('Password').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${base}/dashboard/devices`);

  await page.goto(`${base}/dashboard/devices/${unit}`);
  await page.getByLabel('Command', { exact: true }).selectOption('setInterval');
  await page.getByLabel('Interval (seconds)').fill('30');
  await page.getByRole('button', { name: 'Send command' }).click();
  await page.waitForURL(/\?sent=setInterval/);
  await expect(page.getByRole('status').textContent()).resolves.toContain('Command queued: Set the reporting interval');
  expect(await newestBecomes('delivered')).toMatch(/setInterval seconds=30\s*delivered \d{4}-\d\d-\d\d \d\d:\d\d UTC\s*0x8103 #\d+: success\s*owner@acme\.example \(dashboard\)/);

  // Engine stop without the confirmation: the form says so and keeps the choice.
  await page.getByLabel('Command', { exact: true }).selectOption('engineStop');
  await page.getByRole('button', { name: 'Send command' }).click();
  await expect(page.getByRole('alert').textContent()).resolves.toContain('Tick the box to confirm the engine stop');
  await page.getByLabel('I confirm the engine stop').check();
  await page.getByRole('button', { name: 'Send command' }).click();
  await page.waitForURL(/\?sent=engineStop/);
  expect(await newestBecomes('delivered')).toMatch(/engineStop\s*delivered \d{4}-\d\d-\d\d \d\d:\d\d UTC\s*0x8105 #\d+: success/);
  expect(sim.commands).toEqual(['0x8103 0100000029040000001e', '0x8105 f0']);

  await page.locator('#device-commands').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(ARTIFACTS, 'device-commands.png'), fullPage: true });
  await page.setViewportSize({ width: 375, height: 740 });
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
  await page.screenshot({ path: join(ARTIFACTS, 'device-commands-phone.png'), fullPage: true });
  expect(problems.filter((p) => !p.includes('status of 400'))).toEqual([]);
}, 60_000);
