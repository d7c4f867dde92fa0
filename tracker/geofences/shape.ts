// Geofence shapes: a circle (centre and radius in metres) or a polygon (one closed ring of points).
// Validated once when written; compiled into a point test, with a bounding-box check in front of
// the geometry library's test, when the ingest path loads an account's geofences.
import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { distance } from '@turf/distance';
import { polygon as turfPolygon } from '@turf/helpers';
import { kinks } from '@turf/kinks';
import { z } from 'zod';

export const MAX_RADIUS_M = 100_000;
export const MAX_POLYGON_POINTS = 1000;

const Point = z.strictObject({
  lat: z.number().min(-90).max(90).meta({ description: 'Latitude, decimal degrees (-90 to 90)' }),
  lng: z.number().min(-180).max(180).meta({ description: 'Longitude, decimal degrees (-180 to 180)' }),
});

export const CircleShape = z
  .strictObject({
    type: z.literal('circle'),
    center: Point,
    radius: z.number().gt(0, 'must be greater than 0').max(MAX_RADIUS_M, `must be at most ${MAX_RADIUS_M} metres`).meta({ description: `Metres, more than 0 and at most ${MAX_RADIUS_M}` }),
  })
  .meta({ id: 'CircleShape' });

export const PolygonShape = z
  .strictObject({
    type: z.literal('polygon'),
    points: z
      .array(Point)
      .min(4, 'a polygon needs at least 3 corners and the closing point (4 points)')
      .max(MAX_POLYGON_POINTS, `at most ${MAX_POLYGON_POINTS} points`)
      .meta({ description: `One closed ring: the last point repeats the first; 4 to ${MAX_POLYGON_POINTS} points; must not cross itself` }),
  })
  .superRefine((shape, ctx) => {
    const problem = ringProblem(shape.points);
    if (problem) ctx.addIssue({ code: 'custom', path: ['points'], message: problem });
  })
  .meta({ id: 'PolygonShape' });

export const Shape = z.discriminatedUnion('type', [CircleShape, PolygonShape]).meta({ id: 'GeofenceShape' });
export type Shape = z.infer<typeof Shape>;
type LatLng = { lat: number; lng: number };

/** Why a ring is not a usable polygon, or null. */
function ringProblem(points: LatLng[]): string | null {
  const first = points[0]!;
  const last = points.at(-1)!;
  if (first.lat !== last.lat || first.lng !== last.lng) return 'the polygon is not closed: the last point must repeat the first';
  const lngs = points.map((p) => p.lng);
  if (Math.max(...lngs) - Math.min(...lngs) > 180) return 'the polygon spans more than 180 degrees of longitude (polygons across the antimeridian are not supported)';
  // A point repeated in a row (map tools produce them) is not a crossing.
  const ring = points.filter((p, i) => i === 0 || p.lat !== points[i - 1]!.lat || p.lng !== points[i - 1]!.lng);
  if (ring.length < 4) return 'the polygon needs at least 3 distinct corners';
  const crossings = kinks(turfPolygon([ring.map((p) => [p.lng, p.lat])])).features;
  if (crossings.length > 0) {
    const [lng, lat] = crossings[0]!.geometry.coordinates;
    return `the polygon crosses itself (near lat ${lat!.toFixed(6)}, lng ${lng!.toFixed(6)})`;
  }
  if (Math.abs(signedArea(ring)) < 1e-12) return 'the polygon has no area (its corners lie on one line)';
  return null;
}

/** Shoelace area in square degrees: only its being zero matters here. */
function signedArea(points: LatLng[]): number {
  let sum = 0;
  for (let i = 1; i < points.length; i++) sum += points[i - 1]!.lng * points[i]!.lat - points[i]!.lng * points[i - 1]!.lat;
  return sum / 2;
}

export type Contains = (lat: number, lng: number) => boolean;

const M_PER_DEG_LAT = 111_320;

/** A point test for the shape. Points on the boundary count as inside. */
export function containsFn(shape: Shape): Contains {
  if (shape.type === 'circle') {
    const { center, radius } = shape;
    const centre = [center.lng, center.lat];
    // Generous box: 10% over the radius, and the whole longitude range near the poles.
    const dLat = (radius * 1.1) / M_PER_DEG_LAT;
    const cos = Math.cos((center.lat * Math.PI) / 180);
    const dLng = cos < 0.01 ? 360 : dLat / cos;
    return (lat, lng) => {
      if (Math.abs(lat - center.lat) > dLat) return false;
      const dl = Math.abs(lng - center.lng);
      if (Math.min(dl, 360 - dl) > dLng) return false;
      return distance(centre, [lng, lat], { units: 'meters' }) <= radius;
    };
  }
  const ring = shape.points.map((p) => [p.lng, p.lat]);
  const geometry = { type: 'Polygon' as const, coordinates: [ring] };
  const lats = shape.points.map((p) => p.lat);
  const lngs = shape.points.map((p) => p.lng);
  const [minLat, maxLat, minLng, maxLng] = [Math.min(...lats), Math.max(...lats), Math.min(...lngs), Math.max(...lngs)];
  return (lat, lng) => lat >= minLat && lat <= maxLat && lng >= minLng && lng <= maxLng && booleanPointInPolygon([lng, lat], geometry);
}
