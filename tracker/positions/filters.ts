// Position filters, as Traccar users know them: a valid fix at (0,0), a report timed too far ahead of
// the tracker's clock (but short of the hard refusal of plausible.ts), or an impossible jump from
// the device's previous fix. Each, by its setting, is stored flagged (kept in history, but it moves
// neither the current position nor the counters and raises no events) or dropped; either way the
// device is ACKed, since re-sending would not make it any better.
import type { DecodedPosition } from '../protocols/types.js';
import { metresBetween, type Fix } from './distance.js';

export type FilterAction = 'flag' | 'drop' | 'off';

/** The `filtered` reason a flagged position is stored with. */
export const FLAG_REASONS = ['zero', 'future', 'jump'] as const;
export type FlagReason = (typeof FLAG_REASONS)[number];

/** Every reason of fleet_positions_filtered_total: a duplicate (same device and time) is always dropped. */
export const FILTER_REASONS = [...FLAG_REASONS, 'duplicate'] as const;
export type FilterReason = (typeof FILTER_REASONS)[number];

export interface FilterSettings {
  zero: FilterAction;
  future: FilterAction;
  /** How far ahead of the tracker's clock a report may be timed before it is filtered, ms. */
  futureMarginMs: number;
  jump: FilterAction;
  /** Implied speed from the previous valid fix above which a fix is a jump, km/h. */
  maxSpeedKmh: number;
}

/**
 * The first filter that catches `p` and is not off, or null. `previous` is the device's previous
 * valid fix; the implied speed uses the time either way, so a late record is judged too.
 */
export function filterReason(p: DecodedPosition, previous: Fix | null, settings: FilterSettings, now: number): FlagReason | null {
  if (settings.zero !== 'off' && p.valid && p.lat === 0 && p.lng === 0) return 'zero';
  if (settings.future !== 'off' && p.deviceTime.getTime() > now + settings.futureMarginMs) return 'future';
  if (settings.jump !== 'off' && p.valid && previous && impliedKmh(previous, p) > settings.maxSpeedKmh) return 'jump';
  return null;
}

function impliedKmh(a: Fix, b: DecodedPosition): number {
  const hours = Math.abs(b.deviceTime.getTime() - a.time.getTime()) / 3_600_000;
  if (hours === 0) return 0; // same time: a duplicate, not a jump
  return metresBetween(a, b) / 1000 / hours;
}
