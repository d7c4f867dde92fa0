// Performs an authenticated inbound call: one transaction that replays the response remembered for
// its Idempotency-Key, or validates the body, creates the record (or, for log_only, stores the call)
// and logs the call. Emits no events (inbound calls never do). A refusal throws an ApiError and
// leaves nothing behind, so a corrected retry may use the same key.
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { findDevice } from '../devices/repository.js';
import { parseRecordInput } from '../records/input.js';
import { kindOf } from '../records/kinds.js';
import { insertRecord } from '../records/repository.js';
import type { Db, Queryable } from '../storage/db.js';
import { insertCall } from './calls.js';
import type { InboundWebhook } from './repository.js';
import { findRemembered, remember, type Remembered } from './idempotency.js';

export interface InboundCallIn {
  body: Record<string, unknown>;
  /** SHA-256 of the body as sent: a key may only be replayed for the same bytes. */
  bodyHash: Buffer;
  bodyBytes: number;
  idempotencyKey: string | null;
  clientAddress: string | null;
  receivedAt: Date;
}

export interface Answer {
  status: number;
  body: unknown;
  replayed: boolean;
}

export function accept(db: Db, webhook: InboundWebhook, call: InboundCallIn): Promise<Answer> {
  return db.transaction(async (tx) => {
    const key = call.idempotencyKey;
    const earlier = key ? await findRemembered(tx, webhook.id, key) : null;
    if (earlier) return replay(tx, webhook, call, earlier);

    const kind = kindOf(webhook.action);
    const record = kind ? { kind, input: parseRecordInput(kind, call.body), id: newId(kind.prefix) } : null;
    if (record?.input.deviceId && !(await findDevice(tx, webhook.accountId, record.input.deviceId))) {
      throw new ApiError('bad_request', 'invalid field "deviceId": no such unit in this account');
    }
    const callId = newId('call');
    const answer = { status: record ? 201 : 202, body: { ok: true, action: webhook.action, id: record?.id ?? callId }, replayed: false };

    // A concurrent call with this key may have got there first: it has committed by now.
    if (key && !(await remember(tx, { webhookId: webhook.id, key, bodyHash: call.bodyHash, status: answer.status, response: answer.body, recordId: answer.body.id }))) {
      return replay(tx, webhook, call, (await findRemembered(tx, webhook.id, key))!);
    }
    if (record) await insertRecord(tx, record.kind, { ...record.input, id: record.id, accountId: webhook.accountId, webhookId: webhook.id, receivedAt: call.receivedAt });
    await insertCall(tx, {
      id: callId,
      webhookId: webhook.id,
      status: answer.status,
      error: null,
      recordId: record?.id ?? null,
      idempotencyKey: key,
      replayed: false,
      clientAddress: call.clientAddress,
      bodyBytes: call.bodyBytes,
      body: record ? null : call.body, // a record holds its fields; a log_only call is its body
    });
    return answer;
  });
}

async function replay(tx: Queryable, webhook: InboundWebhook, call: InboundCallIn, earlier: Remembered): Promise<Answer> {
  if (!earlier.bodyHash.equals(call.bodyHash)) throw new ApiError('idempotency_key_reused');
  await insertCall(tx, {
    webhookId: webhook.id,
    status: earlier.status,
    error: null,
    recordId: earlier.recordId,
    idempotencyKey: call.idempotencyKey,
    replayed: true,
    clientAddress: call.clientAddress,
    bodyBytes: call.bodyBytes,
    body: null,
  });
  return { status: earlier.status, body: earlier.response, replayed: true };
}
