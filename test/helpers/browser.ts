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
