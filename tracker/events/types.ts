// The events the tracker raises (the spec's Events table) and the shape in which they leave the
// engine: written in the same transaction as the positions that caused them, then handed to the
// listeners of that transaction (outbound webhooks enqueue their deliveries there).
import type { Severity } from '../alerts/repository.js';
import type { Telemetry } from '../positions/telemetry.js';
import type { Queryable } from '../storage/db.js';

export const EVENT_TYPES = [
  'sos',
  'speeding',
  'geofence_enter',
  'geofence_exit',
  'fuel_alert',
  'fuel_alert_critical',
  'device_online',
  'device_offline',
  'maintenance_due',
  'custom_rule_triggered',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// The severity of the alert an event opens; alerts/ defines it, so custom rules name it without events/.
export type { Severity };

/** The position an event was judged on, in the public API's units (km/h, degrees from north). */
export interface EventPosition {
  lat: number;
  lng: number;
  speed: number;
  heading: number;
  /** ISO 8601 UTC: the time of this fix, which for a last known position is earlier than the event. */
  timestamp: string;
  /** Whether this fix was a valid GPS fix (an invalid one is never shown: its coordinates are often 0,0 or stale). */
  valid: boolean;
  /** True when the report at the event had no valid fix (or there was no report): this is the unit's last known valid position. */
  lastKnown: boolean;
}

export interface StoredEvent {
  id: number;
  accountId: string;
  deviceId: string;
  type: EventType;
  /** ISO 8601 UTC. */
  createdAt: string;
  position: EventPosition | null;
  /** The alert this event opened, if it needs attention. */
  alert: { id: number; severity: Severity; message: string } | null;
  /** Type-specific details (geofence id and name, speed limit, fuel readings, rule id…). */
  data: Record<string, unknown>;
}

/**
 * An event as its listeners get it: with the telemetry at the event (the attributes of the report
 * that raised it; for online/offline, of the unit's latest stored report). It is not stored with the
 * event: the report it came from is in the history.
 */
export interface RaisedEvent extends StoredEvent {
  attributes: Telemetry;
}

/** Runs inside the transaction that stored the events; a throw rolls the whole batch back. */
export type EventListener = (tx: Queryable, events: readonly RaisedEvent[]) => Promise<void>;
