// The dashboard's static files: one stylesheet, one script and an icon, read once at start-up (a missing
// file stops the tracker rather than the first visitor). Pages link them with a content hash in
// the URL, so browsers may keep them for a year and still never run a stale copy.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestHandler } from 'express';

const DIR = join(dirname(fileURLToPath(import.meta.url)), 'assets');

interface Asset {
  body: Buffer;
  type: string;
  version: string;
}

const load = (file: string, type: string): Asset => {
  const body = readFileSync(join(DIR, file));
  return { body, type, version: createHash('sha256').update(body).digest('hex').slice(0, 16) };
};

const ASSETS: Record<string, Asset> = {
  'dashboard.css': load('dashboard.css', 'text/css; charset=utf-8'),
  'dashboard.js': load('dashboard.js', 'text/javascript; charset=utf-8'),
  'icon.svg': load('icon.svg', 'image/svg+xml'),
};

/** The versioned URL of a static file, for links in pages. */
export function assetUrl(file: keyof typeof ASSETS & string): string {
  return `/dashboard/assets/${file}?v=${ASSETS[file]!.version}`;
}

/** GET /dashboard/assets/:file */
export const serveAsset: RequestHandler = (req, res, next) => {
  const asset = Object.hasOwn(ASSETS, req.params.file as string) ? ASSETS[req.params.file as string] : undefined;
  if (!asset) return next();
  const current = req.query.v === asset.version;
  res.set('Cache-Control', current ? 'public, max-age=31536000, immutable' : 'no-cache').type(asset.type).send(asset.body);
};
