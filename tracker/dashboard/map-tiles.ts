// The base map of the dashboard's maps: the tile URL and attribution of the settings, and the one
// origin the pages' Content-Security-Policy lets images come from. A {s} subdomain placeholder
// (the host's first label, checked by the settings) becomes that label's wildcard.
import type { TrackerConfig } from '../../shared/config.js';
import type { AssetName } from './assets.js';
import { html, type Html } from './html.js';

/** The Content-Security-Policy source of the tiles: https://tile.openstreetmap.org, or https://*.example.com for {s}. */
export function tileSource(tileUrl: string): string {
  const sub = /^(https?:\/\/)\{s\}\.(.*)$/.exec(tileUrl);
  return sub ? `${sub[1]}*.${new URL(`${sub[1]}${sub[2]}`).host}` : new URL(tileUrl).origin;
}

/** The attributes a map element carries for the page's script: tile URL and attribution. */
export function baseMapData(config: Pick<TrackerConfig, 'MAP_TILE_URL' | 'MAP_ATTRIBUTION'>): Html {
  return html`data-tiles="${config.MAP_TILE_URL}" data-attribution="${config.MAP_ATTRIBUTION}"`;
}

