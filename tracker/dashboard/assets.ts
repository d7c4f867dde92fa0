// The dashboard's static files: our stylesheet, scripts and icon, and the map library (Leaflet and
// its marker clustering) taken from their npm packages by module resolution, so the same files are
// served from the sources and from the build, and no page needs a CDN. All are read once at
// start-up (a missing file stops the tracker rather than the first visitor). Pages link them with a
// content hash in the URL, so browsers may keep them for a year and still never run a stale copy.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';

const OWN = join(dirname(fileURLToPath(import.meta.url)), 'assets');
const distOf = (pkg: string) => join(dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`)), 'dist');
const LEAFLET = distOf('leaflet');
const CLUSTER = distOf('leaflet.markercluster');

const CSS = 'text/css; charset=utf-8';
const JS = 'text/javascript; charset=utf-8';

interface Asset {
  body: Buffer;
  type: string;
  version: string;
}

const load = (path: string, type: string): Asset => {
  const body = readFileSync(path);
  return { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
};

const ASSETS = {
  'dashboard.css': load(join(OWN, 'dashboard.css'), CSS),
  'dashboard.js': load(join(OWN, 'dashboard.js'), JS),
  'fleet-map.js': load(join(OWN, 'fleet-map.js'), JS),
  'geofence-map.js': load(join(OWN, 'geofence-map.js'), JS),
  'track-replay.js': load(join(OWN, 'track-replay.js'), JS),
  'icon.svg': load(join(OWN, 'icon.svg'), 'image/svg+xml'),
  'leaflet.css': load(join(LEAFLET, 'leaflet.css'), CSS),
  'leaflet.js': load(join(LEAFLET, 'leaflet.js'), JS),
  'MarkerCluster.css': load(join(CLUSTER, 'MarkerCluster.css'), CSS),
  'MarkerCluster.Default.css': load(join(CLUSTER, 'MarkerCluster.Default.css'), CSS),
  'leaflet.markercluster.js': load(join(CLUSTER, 'leaflet.markercluster.js'), JS),
} satisfies Record<string, Asset>;

export type AssetName = keyof typeof ASSETS;

/** The versioned URL of a static file, for links in pages. */
export function assetUrl(file: AssetName): string {
  return `/dashboard/assets/${file}?v=${ASSETS[file].version}`;
}

/** GET /dashboard/assets/:file */
export const serveAsset: RequestHandler = (req, res, next) => {
  const file = req.params.file as string;
  const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file as AssetName] : undefined;
  if (!asset) return next();
  const current = req.query.v === asset.version;
  res.set('Cache-Control', current ? 'public, max-age=31536000, immutable' : 'no-cache').type(asset.type).send(asset.body);
};
