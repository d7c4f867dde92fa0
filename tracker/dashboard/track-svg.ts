// A track drawn as SVG without map tiles: positions are projected with Web Mercator (north up,
// shapes true to life at any latitude), fitted into the picture, and shown as one polyline with
// start and end markers and a scale bar in round metres or kilometres. Geofence drawings use the
// same projection, scale bar and north arrow.
import { html, type Html } from './html.js';

export interface LatLng {
  lat: number;
  lng: number;
}

export interface TrackPoint extends LatLng {
  time: Date;
}

export const WIDTH = 800;
export const HEIGHT = 500;
const PADDING = 24;
const EARTH_RADIUS_M = 6_378_137;
/** The smallest area the picture shows (a parked vehicle would otherwise fill it with jitter). */
const MIN_SPAN_M = 200;

const rad = (deg: number) => (deg * Math.PI) / 180;
const mercatorY = (lat: number) => Math.log(Math.tan(Math.PI / 4 + rad(lat) / 2));

export interface Projection {
  /** Picture coordinates, y down. */
  points: { x: number; y: number }[];
  /** Ground metres per picture unit, at the track's middle latitude. */
  metresPerUnit: number;
}

export function project(track: readonly LatLng[], width = WIDTH, height = HEIGHT): Projection {
  const xs = track.map((p) => rad(p.lng));
  const ys = track.map((p) => mercatorY(p.lat));
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const midLat = (Math.min(...track.map((p) => p.lat)) + Math.max(...track.map((p) => p.lat))) / 2;
  // One Mercator unit is EARTH_RADIUS·cos(latitude) metres on the ground.
  const groundPerUnit = EARTH_RADIUS_M * Math.cos(rad(midLat));
  const minSpan = MIN_SPAN_M / groundPerUnit;
  const spanX = Math.max(maxX - minX, minSpan);
  const spanY = Math.max(maxY - minY, minSpan);
  const k = Math.min((width - 2 * PADDING) / spanX, (height - 2 * PADDING) / spanY);
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  return {
    points: xs.map((x, i) => ({ x: width / 2 + (x - cx) * k, y: height / 2 - (ys[i]! - cy) * k })),
    metresPerUnit: groundPerUnit / k,
  };
}

/** The largest 1, 2 or 5 × 10ⁿ metres not longer than `maxMetres`. */
export function roundDistance(maxMetres: number): number {
  const power = 10 ** Math.floor(Math.log10(maxMetres));
  return [5, 2, 1].map((m) => m * power).find((d) => d <= maxMetres) ?? power;
}

export function distanceLabel(metres: number): string {
  return metres >= 1000 ? `${metres / 1000} km` : `${metres} m`;
}

export const fmt = (n: number) => n.toFixed(1);

/** A bar of a round distance, about a quarter of the picture wide, in its bottom left corner. */
export function scaleBar(metresPerUnit: number): Html {
  const metres = roundDistance((WIDTH / 4) * metresPerUnit);
  const barLength = metres / metresPerUnit;
  const barY = HEIGHT - 14;
  return html`<g class="track-scale">
    <line x1="16" y1="${barY}" x2="${fmt(16 + barLength)}" y2="${barY}"/>
    <line x1="16" y1="${barY - 5}" x2="16" y2="${barY + 5}"/>
    <line x1="${fmt(16 + barLength)}" y1="${barY - 5}" x2="${fmt(16 + barLength)}" y2="${barY + 5}"/>
    <text x="${fmt(16 + barLength / 2)}" y="${barY - 8}" text-anchor="middle">${distanceLabel(metres)}</text>
  </g>
  <text class="track-north" x="${WIDTH - 20}" y="28" text-anchor="middle">N ↑</text>`;
}

/** A point's time as the track names it: 2026-11-10 06:00 UTC. */
export const stamp = (time: Date) => `${time.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The SVG of a track of at least one point. `label` names it for assistive technology. */
export function trackSvg(track: readonly TrackPoint[], label: string): Html {
  const { points, metresPerUnit } = project(track);
  const first = points[0]!;
  const last = points.at(-1)!;
  return html`<svg class="track" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="track-title">
  <title id="track-title">${label}</title>
  <rect class="track-bg" x="0" y="0" width="${WIDTH}" height="${HEIGHT}"/>
  ${points.length > 1 ? html`<polyline class="track-line" points="${points.map((p) => `${fmt(p.x)},${fmt(p.y)}`).join(' ')}"/>` : ''}
  <circle class="track-start" cx="${fmt(first.x)}" cy="${fmt(first.y)}" r="7"><title>Start: ${stamp(track[0]!.time)}</title></circle>
  <rect class="track-end" x="${fmt(last.x - 6)}" y="${fmt(last.y - 6)}" width="12" height="12"><title>End: ${stamp(track.at(-1)!.time)}</title></rect>
  ${scaleBar(metresPerUnit)}
</svg>`;
}
