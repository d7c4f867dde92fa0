// The live feed's entries: how a position is shown in it, and reading the retained log back by id.
import type { DevicePosition } from '../positions/repository.js';
import type { Queryable } from '../storage/db.js';

/** NOTIFY channel announcing new entries; the payload is the highest id written. */
export const FEED_CHANNEL = 'live_feed';
/** The advisory lock that makes ids visible in order across tracker processes. */
export const FEED_LOCK = 0x66656564; // "feed"

export const FEED_KINDS = ['position', 'event', 'command'] as const;
export type FeedKind = (typeof FEED_KINDS)[number];

export interface FeedEntry {
  /** Decimal text of a bigint: orders entries across every tracker process. */
  id: string;
  accountId: string;
  deviceId: string;
  kind: FeedKind;
  /** The event's type, for events. */
  eventType: string | null;
  /** The JSON the stream sends. */
  data: string;
}

const finite = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x : null);

/** A position as the history shows it with `fields=full`, with its unit's id. */
export function presentPosition(r: DevicePosition) {
  const p = r.position;
  return {
    deviceId: r.deviceId,
    lat: finite(p.lat),
    lng: finite(p.lng),
    speed: finite(p.speed),
    heading: finite(p.heading),
    timestamp: p.deviceTime.toISOString(),
    valid: p.valid,
    altitude: finite(p.altitude),
    satellites: finite(p.satellites),
    attributes: p.attributes,
    ...(r.filtered ? { filtered: r.filtered } : {}),
  };
}

const COLUMNS = 'id::text AS id, account_id AS "accountId", device_id AS "deviceId", kind, event_type AS "eventType", data';

/** Entries after an id, oldest first: of every account (the fan-out), or of one (a resuming client). */
export function readFeed(db: Queryable, after: string, limit: number, accountId?: string): Promise<FeedEntry[]> {
  return accountId === undefined
    ? db.query<FeedEntry>(`SELECT ${COLUMNS} FROM feed_log WHERE id > $1::bigint ORDER BY id LIMIT $2`, [after, limit])
    : db.query<FeedEntry>(`SELECT ${COLUMNS} FROM feed_log WHERE account_id = $3 AND id > $1::bigint ORDER BY id LIMIT $2`, [after, limit, accountId]);
}

/** The highest id written so far ('0' for an empty log). */
export async function lastFeedId(db: Queryable): Promise<string> {
  const [row] = await db.query<{ id: string }>('SELECT coalesce(max(id), 0)::text AS id FROM feed_log');
  return row!.id;
}
