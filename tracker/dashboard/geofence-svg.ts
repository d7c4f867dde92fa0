// A geofence drawn as SVG with the track's projection, scale bar and north arrow: a circle as a
// circle of its radius around its centre, a polygon as its ring.
import type { Shape } from '../geofences/shape.js';
import { html, type Html } from './html.js';
import { fmt, HEIGHT, project, scaleBar, WIDTH, type LatLng } from './track-svg.js';

const M_PER_DEG_LAT = 111_320;
/** Web Mercator does not reach the poles; shapes beyond are drawn at this latitude. */
const MAX_LAT = 85;

const clamp = (p: LatLng): LatLng => ({ lat: Math.max(-MAX_LAT, Math.min(MAX_LAT, p.lat)), lng: p.lng });

/** The points a circle's picture must fit: its centre and its northern, southern, eastern and western edges. */
function circleExtent(center: LatLng, radius: number): LatLng[] {
  const dLat = radius / M_PER_DEG_LAT;
  const dLng = dLat / Math.max(Math.cos((center.lat * Math.PI) / 180), 0.01);
  return [center, { lat: center.lat + dLat, lng: center.lng }, { lat: center.lat - dLat, lng: center.lng }, { lat: center.lat, lng: center.lng + dLng }, { lat: center.lat, lng: center.lng - dLng }].map(clamp);
}

function drawing(shape: Shape): { body: Html; metresPerUnit: number } {
  if (shape.type === 'circle') {
    const { points, metresPerUnit } = project(circleExtent(shape.center, shape.radius));
    const c = points[0]!;
    return {
      body: html`<circle class="shape-area" cx="${fmt(c.x)}" cy="${fmt(c.y)}" r="${fmt(shape.radius / metresPerUnit)}"/>
  <circle class="shape-centre" cx="${fmt(c.x)}" cy="${fmt(c.y)}" r="4"/>`,
      metresPerUnit,
    };
  }
  const { points, metresPerUnit } = project(shape.points.map(clamp));
  return { body: html`<polygon class="shape-area" points="${points.map((p) => `${fmt(p.x)},${fmt(p.y)}`).join(' ')}"/>`, metresPerUnit };
}

/** The SVG of a geofence's shape. `label` names it for assistive technology. */
export function shapeSvg(shape: Shape, label: string): Html {
  const { body, metresPerUnit } = drawing(shape);
  return html`<svg class="track" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="shape-title">
  <title id="shape-title">${label}</title>
  <rect class="track-bg" x="0" y="0" width="${WIDTH}" height="${HEIGHT}"/>
  ${body}
  ${scaleBar(metresPerUnit)}
</svg>`;
}
