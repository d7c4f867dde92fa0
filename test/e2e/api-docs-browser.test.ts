// The API reference in a real browser (Debian's Chromium, driven by playwright-core) through real
// gateway and tracker processes: Swagger UI groups the operations by tag and draws each model from
// its schema, with its fields and examples, rather than as `array<any>` or `"string"`.
import { afterAll, beforeAll, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { TAGS } from '../../shared/catalogue.js';
import { launchChromium } from '../helpers/browser.js';
import { freePort } from '../helpers/ports.js';
import { startService, stopAllServices } from '../helpers/processes.js';
import { createStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let browser: Browser;
let page: Page;
let base: string;

beforeAll(async () => {
  stack = await createStack();
  const tracker = await stack.startTracker();
  const gatewayPort = await freePort();
  base = `http://127.0.0.1:${gatewayPort}`;
  await startService('gateway/main.ts', { ...stack.gatewayEnv(tracker.port), GATEWAY_PORT: String(gatewayPort) }, { timeoutMs: 60_000 });
  browser = await launchChromium();
  page = await browser.newPage();
  await page.goto(`${base}/api-docs`);
  await page.locator('.swagger-ui .info .title').waitFor();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stopAllServices();
  await stack?.close();
});

test('groups the operations under the catalogue tags', async () => {
  const shown = await page.locator('.swagger-ui .opblock-tag').allTextContents();
  for (const tag of Object.keys(TAGS)) expect(shown.some((t) => t.startsWith(tag))).toBe(true);
});

test("shows a response's model with its fields and examples", async () => {
  const devices = page.locator('.opblock-get:has(.opblock-summary-path[data-path="/api/public/v1/devices"])').first();
  await devices.locator('.opblock-summary').click();
  const example = devices.locator('.responses-wrapper .response[data-code="200"] .microlight').first();
  await example.waitFor();
  const text = await example.innerText();
  expect(text).toContain('dev_k3x9q2m7p4t8w6z5y2b3');
  expect(text).toContain('"imei"');
});

test('shows the models in the Schemas section with their properties', async () => {
  const model = page.locator('.models article.json-schema-2020-12[data-json-schema-level="0"]').filter({ has: page.locator('.json-schema-2020-12__title', { hasText: /^Device$/ }) });
  await model.scrollIntoViewIfNeeded();
  await model.locator('.json-schema-2020-12-expand-deep-button').first().click();
  const text = await model.innerText();
  for (const field of ['id', 'imei', 'status', 'position', 'lastUpdate']) expect(text).toContain(field);
  expect(text).not.toContain('array<any>');
});
