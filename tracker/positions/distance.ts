// Distances between fixes, for the jump filter and the computed odometer.
import { distance } from '@turf/distance';

export interface Fix {
  lat: number;
  lng: number;
  time: Date;
}

/** Great-circle distance in metres (the mean Earth radius; within 0.5% of the ellipsoid's). */
export function metresBetween(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  return distance([a.lng, a.lat], [b.lng, b.lat], { units: 'meters' });
}
