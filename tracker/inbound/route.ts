// The inbound call (POST /api/inbound/{webhookId}?secret=…, receiveInboundCall in the route
// catalogue): outside systems create records in the inbound webhook's account.
// The secret is checked before anything else, and an unknown id gets the same 401 in the same time
// as a wrong secret. Every call is logged for the webhook's owner, never with its secret.
import type { Request, RequestHandler } from 'express';
import { createHash } from 'node:crypto';
import { ApiError } from '../../shared/errors.js';
import { INTERNAL_HEADERS } from '../../shared/internal.js';
import type { TrackerContext } from '../context.js';
import { accept } from './accept.js';
import { isJsonType, isStorable, parseJson, readBody, requireStorableObject } from './body.js';
import { insertCall, type NewCall } from './calls.js';
import { findInboundWebhookForCall } from './repository.js';
import { secretMatches } from './secret.js';

const UNAUTHORIZED = new ApiError('unauthorized', 'unknown webhook or wrong secret');
/** Refused calls keep their body in the log up to this size, to show the sender what was wrong. */
const KEEP_REFUSED_BODY_BYTES = 16 * 1024;
const KEY = /^[\x20-\x7e]{1,255}$/;

function idempotencyKey(header: string | string[] | undefined): string | null {
  if (header === undefined) return null;
  if (typeof header !== 'string' || !KEY.test(header)) throw new ApiError('bad_request', 'invalid header "Idempotency-Key": 1 to 255 printable ASCII characters');
  return header;
}

function clientAddress(req: Request): string | null {
  const given = req.headers[INTERNAL_HEADERS.clientAddress];
  return typeof given === 'string' ? given.slice(0, 64) : null;
}

function declaredBytes(req: Request): number | null {
  const n = Number(req.headers['content-length']);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

export function inboundHandler(ctx: TrackerContext): RequestHandler {
  async function log(entry: NewCall): Promise<void> {
    try {
      await insertCall(ctx.db, entry);
    } catch (err) {
      ctx.logger.error({ err, webhookId: entry.webhookId }, 'inbound call log write failed');
    }
  }

  return async function inboundCall(req, res) {
    const receivedAt = new Date();
    const webhookId = req.params.webhookId as string;
    const webhook = await findInboundWebhookForCall(ctx.db, webhookId);
    const secret = typeof req.query.secret === 'string' ? req.query.secret : '';
    const entry: Omit<NewCall, 'status' | 'error'> = {
      webhookId,
      recordId: null,
      idempotencyKey: null,
      replayed: false,
      clientAddress: clientAddress(req),
      bodyBytes: declaredBytes(req),
      body: null,
    };
    // Compared even when the id is unknown (against a stand-in hash), so both take the same time.
    const authentic = secretMatches(secret, webhook?.secretHash ?? null);
    if (!authentic || !webhook) {
      // Written once the answer is out, so a known id answers as fast as an unknown one.
      if (webhook) res.once('close', () => void log({ ...entry, status: 401, error: UNAUTHORIZED.message }));
      throw UNAUTHORIZED;
    }

    try {
      if (!isJsonType(req.headers['content-type'])) throw new ApiError('unsupported_media_type', 'Content-Type must be application/json (UTF-8)');
      entry.idempotencyKey = idempotencyKey(req.headers['idempotency-key']);
      const bytes = await readBody(req, res);
      entry.bodyBytes = bytes.length;
      const parsed = parseJson(bytes);
      if (!parsed.ok) throw new ApiError('bad_request', 'the body is not valid JSON');
      if (bytes.length <= KEEP_REFUSED_BODY_BYTES && isStorable(parsed.value)) entry.body = parsed.value;
      const body = requireStorableObject(parsed.value);
      const answer = await accept(ctx.db, webhook, {
        body,
        bodyHash: createHash('sha256').update(bytes).digest(),
        bodyBytes: bytes.length,
        idempotencyKey: entry.idempotencyKey,
        clientAddress: entry.clientAddress,
        receivedAt,
      });
      if (answer.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(answer.status).json(answer.body);
    } catch (err) {
      const refusal = err instanceof ApiError ? err : new ApiError('internal');
      await log({ ...entry, status: refusal.status, error: refusal.message });
      throw err;
    }
  };
}
