// What the rules see and what they produce. Rules are pure: (state, observation, settings) →
// (state, drafts); the engine keeps the state per device and stores the drafts as events.
import type { Telemetry } from '../../positions/telemetry.js';
import type { EventType, Severity } from '../types.js';

/** One report of a device, in device-time order when rules see it. */
export interface Observation {
  /** Device time of the fix (for a report without one: the time it was received), ms. */
  time: number;
  /** When the tracker received it, ms. */
  receivedAt: number;
  /** Null for a report that carries no position (a status message with an alarm). */
  fix: { lat: number; lng: number; speed: number; heading: number; valid: boolean; altitude?: number; satellites?: number } | null;
  attributes: Telemetry;
}

/** An event a rule raised, before it is stored. */
export interface Draft {
  type: EventType;
  data: Record<string, unknown>;
  /** Custom rules choose their alert's severity; other types take it from their type. */
  severity?: Severity;
}

export interface Outcome<S> {
  state: S;
  drafts: Draft[];
}
