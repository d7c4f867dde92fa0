// The outbox rows' life: claimed by a worker for a while (so several tracker processes share the
// work and a dead one's rows come back), then delivered, retried later or given up, each attempt
// written to the endpoint's log; given-up ones may be queued again by the account owner.
import type { Db, Queryable } from '../storage/db.js';
import { DELIVERIES_CHANNEL, disableEndpoint, enableEndpoint } from './endpoints.js';
import type { Format } from './formats/index.js';
import type { WebhookPayload } from './payload.js';
import { parseRetryAfter, retryDelay } from './schedule.js';
import type { SendResult } from './sender.js';

export interface ClaimedDelivery {
  id: number;
  endpointId: string;
  eventType: string;
  payload: WebhookPayload;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  format: Format;
  secret: string;
}

/** The webhook-id of a delivery: one per event and endpoint, the same on every retry. */
export const messageId = (deliveryId: number) => `msg_${deliveryId}`;

export interface ClaimOptions {
  limit: number;
  /** At most this many rows of one endpoint held by this worker… */
  perEndpoint: number;
  /** …counting those it holds already. */
  held: Map<string, number>;
  leaseMs: number;
}

/**
 * Takes due deliveries for leaseMs, oldest first, topping each enabled, unpaused endpoint up to
 * perEndpoint held rows (one index probe per endpoint, so a large backlog costs no more than a
 * small one).
 */
export async function claimDue(db: Queryable, o: ClaimOptions): Promise<ClaimedDelivery[]> {
  const rows = await db.query<{ id: number; endpoint_id: string; event_type: string; payload: WebhookPayload; attempts: number; url: string; format: Format; secret: string }>(
    `WITH claimed AS (
       SELECT d.id
       FROM webhook_endpoints e
       LEFT JOIN unnest($4::text[], $5::int[]) AS h(endpoint_id, n) ON h.endpoint_id = e.id
       CROSS JOIN LATERAL (
         -- SKIP LOCKED: rows another worker is claiming right now are passed over for the next ones.
         SELECT id, next_attempt_at FROM webhook_deliveries
         WHERE endpoint_id = e.id AND status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until <= now())
         ORDER BY next_attempt_at, id LIMIT greatest($2 - coalesce(h.n, 0), 0)
         FOR UPDATE SKIP LOCKED
       ) d
       WHERE e.status = 'enabled' AND (e.paused_until IS NULL OR e.paused_until <= now())
       ORDER BY d.next_attempt_at, d.id LIMIT $1
     )
     UPDATE webhook_deliveries d SET locked_until = now() + $3 * interval '1 millisecond'
     FROM webhook_endpoints e
     WHERE d.id IN (SELECT id FROM claimed) AND e.id = d.endpoint_id
     RETURNING d.id, d.endpoint_id, d.event_type, d.payload, d.attempts, e.url, e.format, e.secret`,
    [o.limit, o.perEndpoint, o.leaseMs, [...o.held.keys()], [...o.held.values()]],
  );
  return rows
    .map((r) => ({ id: r.id, endpointId: r.endpoint_id, eventType: r.event_type, payload: r.payload, attempts: r.attempts, url: r.url, format: r.format, secret: r.secret }))
    .sort((a, b) => a.id - b.id);
}

/** Gives claimed rows back unattempted (a worker stopping), so any worker may take them now. */
export async function releaseClaims(db: Queryable, ids: number[]): Promise<void> {
  await db.query("UPDATE webhook_deliveries SET locked_until = NULL WHERE id = ANY($1) AND status = 'pending'", [ids]);
}

export interface Outcome {
  delivery: ClaimedDelivery;
  result: SendResult;
  attemptedAt: Date;
}

export interface RetryPolicy {
  retrySchedule: readonly number[];
  disableAfterMs: number;
}

/** What the attempts did to their endpoints: disabled (with why), for the log. */
export type Disabled = { endpointId: string; reason: string }[];

/** Writes a batch of attempts: the log, each delivery's new state, and each endpoint's health. */
export async function recordOutcomes(db: Db, outcomes: Outcome[], policy: RetryPolicy): Promise<Disabled> {
  const now = Date.now();
  const rows = outcomes.map((o) => {
    const retryAfterMs = parseRetryAfter(o.result.retryAfter, now);
    const delay = o.result.ok ? null : retryDelay(policy.retrySchedule, o.delivery.attempts + 1, retryAfterMs);
    return { o, retryAfterMs, delay, status: o.result.ok ? 'delivered' : delay === null ? 'failed' : 'pending' };
  });
  const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);

  return db.transaction(async (tx) => {
    await tx.query(
      `WITH u AS (SELECT * FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[], $5::text[], $6::float8[]) AS u(id, status, duration, code, error, delay))
       , updated AS (
         UPDATE webhook_deliveries d
         SET status = u.status, attempts = d.attempts + 1, locked_until = NULL, last_status = u.code, last_error = u.error,
             next_attempt_at = CASE WHEN u.delay IS NULL THEN d.next_attempt_at ELSE now() + u.delay * interval '1 millisecond' END,
             finished_at = CASE WHEN u.status <> 'pending' THEN now() END
         FROM u WHERE d.id = u.id
         RETURNING d.id, d.endpoint_id, d.event_type, u.duration, u.code, u.error, CASE WHEN u.status = 'pending' THEN d.next_attempt_at END AS next_attempt_at
       )
       INSERT INTO webhook_attempts (endpoint_id, delivery_id, message_id, event_type, attempted_at, duration_ms, status_code, error, next_attempt_at)
       SELECT endpoint_id, id, t.message_id, event_type, t.at, duration, code, error, next_attempt_at
       FROM updated JOIN unnest($1::bigint[], $7::timestamptz[], $8::text[]) AS t(delivery, at, message_id) ON t.delivery = updated.id`,
      [
        col((r) => r.o.delivery.id),
        col((r) => r.status),
        col((r) => r.o.result.durationMs),
        col((r) => r.o.result.statusCode),
        col((r) => r.o.result.error),
        col((r) => r.delay),
        col((r) => r.o.attemptedAt.toISOString()),
        col((r) => messageId(r.o.delivery.id)),
      ],
    );
    return updateEndpoints(tx, rows.map((r) => ({ endpointId: r.o.delivery.endpointId, result: r.o.result, retryAfterMs: r.retryAfterMs })), policy);
  });
}

/**
 * Endpoint health: a success clears the failing run (and brings waiting retries forward). The
 * endpoints are locked first, all at once and in id order, so two workers recording at the same
 * time wait for each other instead of deadlocking (NO KEY UPDATE: the attempt rows' foreign keys
 * take KEY SHARE locks on the same endpoints, which it leaves alone).
 */
async function updateEndpoints(tx: Queryable, results: { endpointId: string; result: SendResult; retryAfterMs: number | null }[], policy: RetryPolicy): Promise<Disabled> {
  const succeeded = [...new Set(results.filter((r) => r.result.ok).map((r) => r.endpointId))];
  const failed = [...new Set(results.filter((r) => !r.result.ok && !succeeded.includes(r.endpointId)).map((r) => r.endpointId))];
  const disabled: Disabled = [];
  const before = await tx.query<{ id: string; failing: boolean }>(
    'SELECT id, failing_since IS NOT NULL AS failing FROM webhook_endpoints WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE',
    [[...new Set(results.map((r) => r.endpointId))]],
  );

  if (succeeded.length > 0) {
    await tx.query('UPDATE webhook_endpoints SET failing_since = NULL, last_success_at = now() WHERE id = ANY($1)', [succeeded]);
    // The receiver is back: what waited for a later retry is due now (rows another worker is
    // recording just now keep their time).
    const back = before.filter((e) => e.failing && succeeded.includes(e.id)).map((e) => e.id);
    if (back.length > 0) {
      await tx.query(
        `UPDATE webhook_deliveries SET next_attempt_at = now() WHERE id IN (
           SELECT id FROM webhook_deliveries WHERE endpoint_id = ANY($1) AND status = 'pending' AND next_attempt_at > now() FOR UPDATE SKIP LOCKED)`,
        [back],
      );
    }
  }
  if (failed.length > 0) {
    const failing = await tx.query<{ id: string; expired: boolean }>(
      `UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now())
       WHERE id = ANY($1) RETURNING id, failing_since <= now() - $2 * interval '1 millisecond' AS expired`,
      [failed, policy.disableAfterMs],
    );
    for (const f of failing.filter((f) => f.expired)) {
      const reason = `every delivery failed for ${describeDuration(policy.disableAfterMs)}`;
      if (await disableEndpoint(tx, f.id, reason)) disabled.push({ endpointId: f.id, reason });
    }
  }
  for (const id of new Set(results.filter((r) => r.result.statusCode === 410).map((r) => r.endpointId))) {
    const reason = 'the receiver answered 410 Gone';
    if (await disableEndpoint(tx, id, reason)) disabled.push({ endpointId: id, reason });
  }
  const pauses = new Map<string, number>();
  for (const r of results) if (r.retryAfterMs !== null) pauses.set(r.endpointId, Math.max(pauses.get(r.endpointId) ?? 0, r.retryAfterMs));
  if (pauses.size > 0) {
    await tx.query(
      `UPDATE webhook_endpoints e SET paused_until = GREATEST(COALESCE(e.paused_until, now()), now() + u.ms * interval '1 millisecond')
       FROM unnest($1::text[], $2::float8[]) AS u(id, ms) WHERE e.id = u.id`,
      [[...pauses.keys()], [...pauses.values()]],
    );
  }
  return disabled;
}

function describeDuration(ms: number): string {
  const units: [number, string][] = [[86_400_000, 'day'], [3_600_000, 'hour'], [60_000, 'minute'], [1000, 'second']];
  for (const [size, name] of units) if (ms >= size && ms % size === 0) return `${ms / size} ${name}${ms === size ? '' : 's'}`;
  return `${ms} ms`;
}

export interface Attempt {
  attemptedAt: Date;
  messageId: string;
  eventType: string;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  nextAttemptAt: Date | null;
}

/** The endpoint's log, newest first. */
export async function listAttempts(db: Queryable, endpointId: string, limit: number): Promise<Attempt[]> {
  const rows = await db.query<{ attempted_at: Date; message_id: string; event_type: string; status_code: number | null; duration_ms: number; error: string | null; next_attempt_at: Date | null }>(
    `SELECT attempted_at, message_id, event_type, status_code, duration_ms, error, next_attempt_at
     FROM webhook_attempts WHERE endpoint_id = $1 ORDER BY attempted_at DESC, id DESC LIMIT $2`,
    [endpointId, limit],
  );
  return rows.map((r) => ({ attemptedAt: r.attempted_at, messageId: r.message_id, eventType: r.event_type, statusCode: r.status_code, durationMs: r.duration_ms, error: r.error, nextAttemptAt: r.next_attempt_at }));
}

/** Deliveries of the endpoint by state. */
export async function deliveryCounts(db: Queryable, endpointId: string): Promise<{ pending: number; delivered: number; failed: number }> {
  const rows = await db.query<{ status: 'pending' | 'delivered' | 'failed'; n: number }>(
    'SELECT status, count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 GROUP BY status',
    [endpointId],
  );
  const counts = { pending: 0, delivered: 0, failed: 0 };
  for (const r of rows) counts[r.status] = r.n;
  return counts;
}

/** A test message's attempt, logged like the others (it belongs to no delivery). */
export async function recordTestAttempt(db: Queryable, endpointId: string, id: string, attemptedAt: Date, result: SendResult): Promise<void> {
  await db.query(
    `INSERT INTO webhook_attempts (endpoint_id, message_id, event_type, attempted_at, duration_ms, status_code, error) VALUES ($1, $2, 'test', $3, $4, $5, $6)`,
    [endpointId, id, attemptedAt.toISOString(), result.durationMs, result.statusCode, result.error],
  );
}

/**
 * Queues the endpoint's failed deliveries of events stored since `since` again, due now, with the
 * whole retry schedule ahead of them (same rows, so the same webhook-id: a receiver that kept one
 * still recognises it). A disabled endpoint is enabled: asking for the retry says the receiver is
 * fixed, and a disabled one would never be sent to. Returns how many were queued, and whether the
 * endpoint was enabled by this; null when there is no such endpoint.
 */
export async function retryFailed(db: Db, endpointId: string, since: Date): Promise<{ requeued: number; enabled: boolean } | null> {
  return db.transaction(async (tx) => {
    const endpoint = await tx.query<{ status: string }>('SELECT status FROM webhook_endpoints WHERE id = $1 FOR NO KEY UPDATE', [endpointId]);
    if (!endpoint[0]) return null;
    const requeued = await tx.query(
      `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = now(), locked_until = NULL, finished_at = NULL
       WHERE endpoint_id = $1 AND status = 'failed' AND created_at >= $2 RETURNING id`,
      [endpointId, since.toISOString()],
    );
    const enabled = endpoint[0].status === 'disabled';
    if (enabled) await enableEndpoint(tx, endpointId); // also wakes the workers
    else if (requeued.length > 0) await tx.query('SELECT pg_notify($1, $2)', [DELIVERIES_CHANNEL, '']);
    return { requeued: requeued.length, enabled };
  });
}

/** Deliveries waiting to be attempted (new or waiting for a retry), in all accounts. */
export async function countPending(db: Queryable): Promise<number> {
  return (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'"))[0]!.n;
}

/** Drops finished deliveries (with their attempts) and test attempts older than the retention. */
export async function purgeFinished(db: Queryable, retentionDays: number): Promise<void> {
  await db.query("DELETE FROM webhook_deliveries WHERE status <> 'pending' AND finished_at < now() - make_interval(days => $1)", [retentionDays]);
  await db.query('DELETE FROM webhook_attempts WHERE delivery_id IS NULL AND attempted_at < now() - make_interval(days => $1)', [retentionDays]);
}
