// Suntech reports without a fix of their own (command results, travel reports, ST4xx reports with
// an empty fix) are placed at the connection's last valid fix (protocols/last-fix.ts), not valid,
// as Traccar does.
import type { Telemetry } from '../../positions/telemetry.js';
import { atLastFix as placed, lastFix, rememberFix } from '../last-fix.js';
import type { DecodeResult, ProtocolState } from '../types.js';

/** Remembers a valid fix for the reports that come without one (command results, travel reports). */
export function withFix(conn: ProtocolState, result: DecodeResult): DecodeResult {
  rememberFix(conn, result.positions);
  return result;
}

/**
 * A report that carries no fix but a value worth storing (a command result, a driver id) is
 * stored at the last valid fix, not valid, as Traccar does; without one, as attributes only.
 */
export function atLastFix(conn: ProtocolState, identity: string, attributes: Telemetry, extra: Partial<DecodeResult> = {}): DecodeResult {
  const fix = lastFix(conn);
  if (!fix) return { identity, positions: [], attributes, ...extra };
  return { identity, positions: [placed(fix, new Date(), attributes)], ...extra };
}

/** A command result as an attribute when it fits one (256 characters); a longer one (a full
 * configuration dump) travels only as the command's reply, whole. */
export function resultOf(text: string): Telemetry {
  return text.length <= 256 ? { result: text } : {};
}
