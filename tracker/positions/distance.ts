// Distances between fixes, for the jump filter and the computed odometer: the haversine formula on
// the mean Earth radius (within 0.5% of the ellipsoid's), the same arithmetic as the geofences'
// circles (@turf/distance), written out because it runs twice for every position stored.

export interface Fix {
  lat: number;
  lng: number;
  time: Date;
}

const EARTH_RADIUS_M = 6_371_008.8;
const radians = (degrees: number) => ((degrees % 360) * Math.PI) / 180;

/** Great-circle distance in metres. */
export function metresBetween(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const h = Math.pow(Math.sin(radians(b.lat - a.lat) / 2), 2) + Math.pow(Math.sin(radians(b.lng - a.lng) / 2), 2) * Math.cos(radians(a.lat)) * Math.cos(radians(b.lat));
  return 2 * Math.atan2(Math.sqrt(h), Math.sqrt(1 - h)) * EARTH_RADIUS_M;
}
