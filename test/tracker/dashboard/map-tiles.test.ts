// The tile server's origin as the dashboard's Content-Security-Policy names it.
import { expect, test } from '@jest/globals';
import { tileSource } from '../../../tracker/dashboard/map-tiles.js';

test.each([
  ['https://tile.openstreetmap.org/{z}/{x}/{y}.png', 'https://tile.openstreetmap.org'],
  ['http://tiles.internal:8080/osm/{z}/{x}/{y}.png?style=plain', 'http://tiles.internal:8080'],
  ['https://{s}.basemaps.cartocdn.com/light_all/{z}/{x}/{y}{r}.png', 'https://*.basemaps.cartocdn.com'],
])('%s → %s', (url, source) => {
  expect(tileSource(url)).toBe(source);
});
