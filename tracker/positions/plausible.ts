// The plausibility check every decoded position and attribute set passes before storage, whatever
// protocol it came in: one unusable value (a time in the year 200000, a speed of 1e307, an altitude
// of 1e300) must be refused for its own device, never reach the shared batched write.
import type { DecodedPosition } from '../protocols/types.js';
import { isTelemetry, type Telemetry } from './telemetry.js';

export interface PlausibleLimits {
  /** Positions timed before this are refused (POSITION_EARLIEST_TIME). */
  earliest: Date;
  /** How far ahead of the tracker's clock a position may be timed, in ms (POSITION_MAX_FUTURE). */
  maxFutureMs: number;
}

/** Why a position or attribute set was refused (the `reason` label of fleet_positions_refused_total). */
export const REFUSAL_REASONS = ['time', 'latitude', 'longitude', 'speed', 'heading', 'altitude', 'satellites', 'attribute'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** km/h: faster than any airliner a tracker rides in. */
export const MAX_SPEED_KMH = 2000;
/** Metres above or below sea level. */
export const MAX_ALTITUDE_M = 20_000;
/** The `smallint` column that holds satellites. */
const MAX_SATELLITES = 32_767;

/** The first reason `p` cannot be stored, or null when it can. */
export function implausible(p: DecodedPosition, limits: PlausibleLimits, now = Date.now()): RefusalReason | null {
  const t = p.deviceTime.getTime();
  if (!(t >= limits.earliest.getTime() && t <= now + limits.maxFutureMs)) return 'time';
  if (!(Math.abs(p.lat) <= 90)) return 'latitude';
  if (!(Math.abs(p.lng) <= 180)) return 'longitude';
  if (!(p.speed >= 0 && p.speed < MAX_SPEED_KMH)) return 'speed';
  if (!Number.isFinite(p.heading)) return 'heading';
  if (p.altitude !== undefined && !(Math.abs(p.altitude) <= MAX_ALTITUDE_M)) return 'altitude';
  if (p.satellites !== undefined && !(Number.isInteger(p.satellites) && p.satellites >= 0 && p.satellites <= MAX_SATELLITES)) return 'satellites';
  return plausibleTelemetry(p.attributes) ? null : 'attribute';
}

/**
 * True when every attribute has its vocabulary type and every number is finite (`io` included).
 * The types already keep decoders to the vocabulary; this catches the values they computed (a
 * NaN from a corrupt field, an alarm string that is not on the list).
 */
export function plausibleTelemetry(attributes: Telemetry): boolean {
  return isTelemetry(attributes);
}
