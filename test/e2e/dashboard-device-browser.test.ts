// A device's page in a real browser (Debian's Chromium, driven by playwright-core) through the
// gateway, for a GT06 unit that reported over TCP: the telemetry panel with units and ages, the
// last alarms newest first, the commands its protocol takes, and its recent commands in each
// status (queued, sent, delivered, failed, expired) with what each status means. Screenshots land
// in test/artifacts/dashboard/.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { runVerb } from '../../tracker/admin/verbs.js';
import { createCommand, deliverSent, expireCommands, failCommand } from '../../tracker/commands/repository.js';
import { gt06Alarm, gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { launchChromium, signedInPage } from '../helpers/browser.js';
import { account, createOwner, startDashboardStack, type DashboardStack } from '../helpers/dashboard.js';
import { DeviceClient } from '../helpers/device-client.js';

const ARTIFACTS = join('test', 'artifacts', 'dashboard');
const PASSWORD = 'a long and memorable passphrase';
const IMEI = '359633100018501';

let stack: DashboardStack;
let browser: Browser;
let page: Page;
let deviceId: string;
const problems: string[] = [];

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  stack = await startDashboardStack();
  const fleet = await account(stack, 'Harbour Freight');
  deviceId = ((await runVerb(stack.tracker.ctx, 'devices add', { account: fleet, imei: IMEI, name: 'Reefer 12' })) as { id: string }).id;
  await createOwner(stack, fleet, 'owner@harbour.example', PASSWORD);

  // The unit reports a fix with its ignition and battery, then a power cut and an SOS; then it goes away.
  const unit = await DeviceClient.open(stack.tracker.ingest.ports.device!);
  const now = Math.floor(Date.now() / 1000) * 1000;
  const fix = (secondsAgo: number) => ({ time: new Date(now - secondsAgo * 1000), lat: 53.54, lng: 9.98, speed: 0, heading: 0, satellites: 9 });
  unit.send(gt06Login(IMEI, 1));
  await unit.read(10);
  unit.send(gt06Position(fix(300), { ignition: true, batteryLevel: 80 }, 2));
  await unit.read(10);
  unit.send(gt06Alarm(fix(200), 'powerCut', { ignition: true, batteryLevel: 80 }, 3));
  await unit.read(10);
  unit.send(gt06Alarm(fix(100), 'sos', { ignition: true, batteryLevel: 80 }, 4));
  await unit.read(10);
  unit.close();

  // Its commands in every status, oldest first (it is away: nothing is sent meanwhile).
  const db = stack.tracker.ctx.db;
  const command = async (type: 'locate' | 'reboot' | 'engineStop' | 'setInterval', attributes = {}) => {
    // Each asked a moment after the one before, as the list orders them.
    await new Promise((r) => setTimeout(r, 5));
    return createCommand(db, { accountId: fleet, deviceId, type, attributes, sender: { tokenId: 'tok_dispatch' }, ttlSeconds: 600 });
  };
  const expired = await command('reboot');
  await db.query("UPDATE commands SET expires_at = now() - interval '1 second' WHERE id = $1", [expired.id]);
  await expireCommands(db);
  await command('locate');
  await db.query("UPDATE commands SET status = 'sent', sent_at = now(), seq = 7 WHERE status = 'queued'");
  await deliverSent(db, deviceId, 7, 'Lat:N53.540000,Lon:E9.980000', null);
  const failed = await command('engineStop');
  await failCommand(db, failed.id, 'the unit refused it');
  await command('setInterval', { seconds: 60 });
  await db.query("UPDATE commands SET status = 'sent', sent_at = now(), seq = 8 WHERE status = 'queued'");
  await command('locate');

  browser = await launchChromium();
  page = await signedInPage(browser, stack.url, { email: 'owner@harbour.example', password: PASSWORD }, { problems });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.close();
});

test('the device page shows its telemetry with units and age, its last alarms, and its commands with their status', async () => {
  await page.goto(`${stack.url}/dashboard/devices/${deviceId}`);
  const telemetry = page.locator('section:has(#telemetry)');
  const facts = await telemetry.locator('dl > div').evaluateAll((rows) => rows.map((r) => [r.querySelector('dt')!.textContent, r.querySelector('dd')!.textContent]));
  // Each value as of the last report, 100 s ago. GT06 tells the battery in six steps (80 % is the fifth);
  // the tracker counts the odometer (the unit stood still) and the engine hours (200 s with the ignition on).
  const age = ' · [12] min ago';
  expect(facts).toEqual([
    ['Ignition', expect.stringMatching(new RegExp(`^On${age}$`))],
    ['Battery level', expect.stringMatching(new RegExp(`^83 %${age}$`))],
    ['Odometer', expect.stringMatching(new RegExp(`^0 km${age}$`))],
    ['Engine hours', expect.stringMatching(new RegExp(`^0\\.1 h${age}$`))],
  ]);
  const alarms = await telemetry.locator('tbody tr').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((c) => c.textContent)));
  expect(alarms).toEqual([
    ['sos', expect.stringMatching(/ago$/)],
    ['powerCut', expect.stringMatching(/ago$/)],
  ]);

  const commands = page.locator('section:has(#device-commands)');
  await expect(commands.locator('#command-types').textContent()).resolves.toMatch(/^This unit \(gt06 protocol\) takes: Locate, .*Engine stop.*\.$/);
  const rows = await commands.locator('tbody tr').evaluateAll((rows) =>
    rows.map((r) => ({ command: r.querySelector('[data-label="Command"]')!.textContent!.trim(), status: r.querySelector('[data-label="Status"] .badge')!.textContent, detail: r.querySelector('.status-detail')!.textContent })),
  );
  const UTC = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC';
  expect(rows).toEqual([
    { command: 'locate', status: 'queued', detail: expect.stringMatching(new RegExp(`^waiting for the unit until ${UTC}$`)) },
    { command: 'setInterval seconds=60', status: 'sent', detail: expect.stringMatching(new RegExp(`^sent ${UTC}, awaiting the unit's answer$`)) },
    { command: 'engineStop', status: 'failed', detail: 'the unit refused it' },
    { command: 'locate', status: 'delivered', detail: expect.stringMatching(new RegExp(`^${UTC}$`)) },
    { command: 'reboot', status: 'expired', detail: expect.stringMatching(new RegExp(`^not sent before ${UTC}$`)) },
  ]);
  await expect(commands.locator('tbody tr').nth(3).locator('[data-label="Reply"]').textContent()).resolves.toBe('Lat:N53.540000,Lon:E9.980000');
  await telemetry.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(ARTIFACTS, 'device.png'), fullPage: true });
  await telemetry.screenshot({ path: join(ARTIFACTS, 'device-telemetry.png') });
  await commands.locator('table').screenshot({ path: join(ARTIFACTS, 'device-command-statuses.png') });
  expect(problems).toEqual([]);
});
