// Debian's Chromium driven by playwright-core, as the browser tests run it: headless, no sandbox
// (containers), nothing fetched in the background; and the problems a page reports.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/**
 * Collects the page's console errors and uncaught exceptions into `problems`. The map's tile
 * server (MAP_TILE_URL's origin, OpenStreetMap's by default) is on the internet, which tests do
 * not reach: its requests fail at once, as they would offline, and what that logs is expected (the
 * failed loads, and the blank image Leaflet puts in a dropped tile's place, which img-src refuses).
 */
export async function watchPage(page: Page, problems: string[], tiles = 'https://tile.openstreetmap.org'): Promise<void> {
  await page.route(`${tiles}/**`, (route) => route.abort('internetdisconnected'));
  page.on('console', (m) => {
    if (m.type() !== 'error' || m.location().url.startsWith(tiles) || /image 'data:image\/gif;base64,[^']*' violates/.test(m.text())) return;
    problems.push(m.text());
  });
  page.on('pageerror', (e) => void problems.push(e.message));
}

/** A page of a new context, watched (watchPage), signed in to the dashboard at `baseUrl` and on its devices list. */
export async function signedInPage(
  browser: Browser,
  baseUrl: string,
  user: { email: string; password: string },
  opts: { problems: string[]; height?: number; tiles?: string },
): Promise<Page> {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: opts.height ?? 860 } })).newPage();
  await watchPage(page, opts.problems, opts.tiles);
  await page.goto(`${baseUrl}/dashboard/login`);
  await page.getByLabel('Email address').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.keyboard.press('Enter');
  await page.waitForURL(`${baseUrl}/dashboard/devices`);
  return page;
}
