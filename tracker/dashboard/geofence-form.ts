// The geofence form: a name, a description and a shape, either a circle (centre and radius) or a
// polygon typed as "lat,lng" lines or pasted as GeoJSON. The form is turned into the API's
// geofence input and checked by the API's own schema, whose messages are then tied to the form's
// fields. A polygon typed without its closing point is closed here.
import type { z } from 'zod';
import type { Geofence, GeofenceInput } from '../geofences/repository.js';
import { GeofenceInput as GeofenceInputSchema } from '../geofences/schemas.js';
import { CircleShape, MAX_POLYGON_POINTS } from '../geofences/shape.js';
import { DECIMAL, issueText, type FormErrors } from './forms.js';
import type { LatLng } from './track-svg.js';

/** Enough for MAX_POLYGON_POINTS points with many decimals, as lines or as GeoJSON. */
export const MAX_POINTS_TEXT = 100_000;

const LINE = /^([-+]?(?:\d+\.?\d*|\.\d+))\s*[,;\s]\s*([-+]?(?:\d+\.?\d*|\.\d+))$/;

type Result<T> = { ok: true; value: T } | { ok: false; message: string };

/** A number typed in a field, checked by the API's schema for it. */
function numberIn(text: string | undefined, what: string, check: z.ZodType<number>): Result<number> {
  const t = (text ?? '').trim();
  if (t === '') return { ok: false, message: `${what} is required` };
  if (!DECIMAL.test(t)) return { ok: false, message: `${what} must be a number, such as 52.52` };
  const checked = check.safeParse(Number(t));
  return checked.success ? { ok: true, value: checked.data } : { ok: false, message: `${what} ${issueText(checked.error.issues[0]!)}` };
}

const close = (points: LatLng[]): LatLng[] => {
  const first = points[0];
  const last = points.at(-1);
  return first && last && (first.lat !== last.lat || first.lng !== last.lng) ? [...points, first] : points;
};

/** A GeoJSON Polygon, or a Feature or one-feature FeatureCollection holding one; [lng, lat] pairs. */
function geoJsonRing(text: string): Result<LatLng[]> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the points are not valid GeoJSON (nor “lat,lng” lines)' };
  }
  let geometry = value as { type?: unknown; coordinates?: unknown; geometry?: unknown; features?: unknown };
  if (geometry?.type === 'FeatureCollection') {
    const features = geometry.features;
    if (!Array.isArray(features) || features.length !== 1) return { ok: false, message: 'the GeoJSON FeatureCollection must hold exactly one feature' };
    geometry = features[0] as typeof geometry;
  }
  if (geometry?.type === 'Feature') geometry = geometry.geometry as typeof geometry;
  if (geometry?.type !== 'Polygon' || !Array.isArray(geometry.coordinates)) return { ok: false, message: 'the GeoJSON must be a Polygon (or a Feature holding one)' };
  const rings = geometry.coordinates as unknown[];
  if (rings.length !== 1) return { ok: false, message: 'the GeoJSON polygon must have one ring: polygons with holes are not supported' };
  const ring = rings[0];
  if (!Array.isArray(ring)) return { ok: false, message: 'the GeoJSON polygon’s ring must be a list of [longitude, latitude] positions' };
  const points: LatLng[] = [];
  for (const [i, p] of ring.entries()) {
    if (!Array.isArray(p) || typeof p[0] !== 'number' || typeof p[1] !== 'number') return { ok: false, message: `GeoJSON position ${i + 1} is not [longitude, latitude]` };
    points.push({ lat: p[1], lng: p[0] });
  }
  return { ok: true, value: points };
}

function lineRing(text: string): Result<LatLng[]> {
  const points: LatLng[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const m = LINE.exec(line);
    if (!m) return { ok: false, message: `line ${i + 1} (“${line.length > 40 ? `${line.slice(0, 40)}…` : line}”) is not “latitude,longitude”` };
    points.push({ lat: Number(m[1]), lng: Number(m[2]) });
  }
  return { ok: true, value: points };
}

export function parsePoints(text: string): Result<LatLng[]> {
  const t = text.trim();
  if (t === '') return { ok: false, message: 'the polygon’s points are required' };
  if (t.length > MAX_POINTS_TEXT) return { ok: false, message: `the points must be at most ${MAX_POINTS_TEXT} characters` };
  const ring = t.startsWith('{') ? geoJsonRing(t) : lineRing(t);
  if (!ring.ok) return ring;
  if (ring.value.length > MAX_POLYGON_POINTS) return { ok: false, message: `a polygon has at most ${MAX_POLYGON_POINTS} points` };
  return { ok: true, value: close(ring.value) };
}

/** Where an issue of the API's schema belongs on the form, and how it reads there. */
function placed(path: readonly PropertyKey[], text: string): [string, string] {
  const [top, part, index, coordinate] = path.map(String);
  if (top !== 'shape') return [top ?? 'form', `${top ?? 'the geofence'} ${text}`];
  if (part === 'radius') return ['radius', `radius ${text}`];
  if (part === 'center') return [index ?? 'lat', `${index === 'lng' ? 'longitude' : 'latitude'} of the centre ${text}`];
  if (part === 'points' && index !== undefined) return ['points', `point ${Number(index) + 1}: ${coordinate === 'lng' ? 'longitude' : 'latitude'} ${text}`];
  return ['points', text];
}

export type GeofenceForm = { ok: true; input: GeofenceInput } | { ok: false; errors: FormErrors };

export function parseGeofenceForm(values: Record<string, string>): GeofenceForm {
  const errors: FormErrors = {};
  let shape: unknown = null;
  if (values.type === 'circle') {
    const centre = CircleShape.shape.center.shape;
    const lat = numberIn(values.lat, 'latitude of the centre', centre.lat);
    const lng = numberIn(values.lng, 'longitude of the centre', centre.lng);
    const radius = numberIn(values.radius, 'radius', CircleShape.shape.radius);
    if (!lat.ok) errors.lat = lat.message;
    if (!lng.ok) errors.lng = lng.message;
    if (!radius.ok) errors.radius = radius.message;
    if (lat.ok && lng.ok && radius.ok) shape = { type: 'circle', center: { lat: lat.value, lng: lng.value }, radius: radius.value };
  } else if (values.type === 'polygon') {
    const points = parsePoints(values.points ?? '');
    if (points.ok) shape = { type: 'polygon', points: points.value };
    else errors.points = points.message;
  } else {
    errors.type = 'choose a circle or a polygon';
  }
  const named = { name: values.name ?? '', description: values.description ?? '' };
  // Without a usable shape, the name and description are still checked, so every error shows at once.
  const parsed = shape === null ? GeofenceInputSchema.omit({ shape: true }).safeParse(named) : GeofenceInputSchema.safeParse({ ...named, shape });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const [name, message] = placed(issue.path, issueText(issue));
      errors[name] ??= message;
    }
  }
  if (shape === null || !parsed.success || Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, input: parsed.data as GeofenceInput };
}

/** The form's fields for an existing geofence (a polygon without its closing point). */
export function geofenceFormValues(g: Geofence): Record<string, string> {
  const base = { name: g.name, description: g.description, type: g.shape.type };
  if (g.shape.type === 'circle') return { ...base, lat: String(g.shape.center.lat), lng: String(g.shape.center.lng), radius: String(g.shape.radius), points: '' };
  return { ...base, lat: '', lng: '', radius: '', points: g.shape.points.slice(0, -1).map((p) => `${p.lat},${p.lng}`).join('\n') };
}
