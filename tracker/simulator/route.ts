// Plausible movement for simulated vehicles: driving along a loop around a start point with
// varying speed, so positions move like a van on city streets rather than jumping.
import type { DeviceFix } from './frames/fix.js';

export interface RouteState {
  lat: number;
  lng: number;
  heading: number;
  speed: number;
}

const EARTH_M_PER_DEG = 111_320;

/** A start point near a city centre, different per device index. */
export function startPoint(index: number, center = { lat: 52.52, lng: 13.405 }): RouteState {
  const angle = (index * 137.5 * Math.PI) / 180;
  const r = 0.01 + (index % 20) * 0.002;
  return { lat: center.lat + r * Math.cos(angle), lng: center.lng + r * Math.sin(angle), heading: (index * 53) % 360, speed: 30 };
}

/** Advances the vehicle by `seconds`, turning gently and varying speed between 0 and ~80 km/h. */
export function advance(s: RouteState, seconds: number, random: () => number = Math.random): RouteState {
  const heading = (s.heading + (random() - 0.5) * 30 + 360) % 360;
  const speed = Math.max(0, Math.min(80, s.speed + (random() - 0.45) * 10));
  const metres = (speed / 3.6) * seconds;
  const rad = (heading * Math.PI) / 180;
  const lat = s.lat + (metres * Math.cos(rad)) / EARTH_M_PER_DEG;
  const lng = s.lng + (metres * Math.sin(rad)) / (EARTH_M_PER_DEG * Math.cos((s.lat * Math.PI) / 180));
  return { lat, lng, heading, speed };
}

export function toFix(s: RouteState, time = new Date()): DeviceFix {
  return { time: new Date(Math.floor(time.getTime() / 1000) * 1000), lat: s.lat, lng: s.lng, speed: s.speed, heading: s.heading, valid: true, satellites: 9 };
}
