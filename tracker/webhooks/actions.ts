// What an account's owner (in the dashboard) or the operator (with the CLI) does with an outbound
// webhook endpoint beyond reading it: add one (the URL checked against the target settings, a new
// secret made and returned this once) and send it a signed test message, logged like a delivery
// attempt.
import { randomBytes } from 'node:crypto';
import type { TrackerConfig } from '../../shared/config.js';
import type { Queryable } from '../storage/db.js';
import { recordTestAttempt } from './deliveries.js';
import { endpointSecret, insertEndpoint, type Endpoint } from './endpoints.js';
import { bodyFormat, renderBody, type BodyFormat, type Format } from './formats/index.js';
import { webhookSender } from './index.js';
import { testPayload, type PayloadDevice } from './payload.js';
import { newSecret, signatureHeaders } from './signing.js';
import { checkWebhookUrl } from './url.js';

export type TargetConfig = Pick<TrackerConfig, 'WEBHOOK_ALLOW_HTTP' | 'WEBHOOK_ALLOW_PRIVATE'>;

/** Adds an endpoint; a URL delivery would refuse is a bad_request naming the problem. */
export async function addEndpoint(db: Queryable, config: TargetConfig, e: { accountId: string; url: string; events: string[]; format: Format }): Promise<{ endpoint: Endpoint; secret: string }> {
  const url = await checkWebhookUrl(e.url, { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE });
  const secret = newSecret();
  return { endpoint: await insertEndpoint(db, { ...e, url, secret }), secret };
}

export interface TestOutcome {
  messageId: string;
  deliversAs: BodyFormat;
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** The account's first unit, so a test message looks like the real ones. */
async function sampleDevice(db: Queryable, accountId: string): Promise<PayloadDevice | null> {
  const rows = await db.query<PayloadDevice>('SELECT id, name, plate, imei FROM devices WHERE account_id = $1 ORDER BY created_at, id LIMIT 1', [accountId]);
  return rows[0] ?? null;
}

/**
 * Sends one test message now (no retries) and logs the attempt. `timeoutMs` bounds the wait for the
 * answer when someone waits for the result behind a proxy with its own timeout.
 */
export async function sendTestMessage(db: Queryable, config: TargetConfig, endpoint: Endpoint, timeoutMs?: number): Promise<TestOutcome> {
  const secret = (await endpointSecret(db, endpoint.id))!;
  const format = bodyFormat(endpoint.format, endpoint.url);
  const body = renderBody(format, testPayload(await sampleDevice(db, endpoint.accountId)));
  const messageId = `msg_test_${randomBytes(10).toString('hex')}`;
  const sender = webhookSender(config, timeoutMs);
  const attemptedAt = new Date();
  try {
    const result = await sender.send(endpoint.url, body, signatureHeaders(secret, messageId, body));
    await recordTestAttempt(db, endpoint.id, messageId, attemptedAt, result);
    return { messageId, deliversAs: format, ok: result.ok, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs };
  } finally {
    sender.close();
  }
}
