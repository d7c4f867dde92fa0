// Operator commands for outbound webhooks: add (the secret is shown this once), list, remove,
// enable again, send a test message, and read an endpoint's delivery log.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import type { AdminContext } from '../admin/commands.js';
import { LIMIT, accountId, requireAccount, webhookId } from '../admin/inputs.js';
import { EVENT_TYPES } from '../events/types.js';
import type { Queryable } from '../storage/db.js';
import { deliveryCounts, listAttempts, recordTestAttempt } from './deliveries.js';
import { enableEndpoint, endpointSecret, findEndpoint, insertEndpoint, listEndpoints, removeEndpoint, type Endpoint } from './endpoints.js';
import { FORMATS, bodyFormat, renderBody, type Format } from './formats/index.js';
import { webhookSender } from './index.js';
import { testPayload, type PayloadDevice } from './payload.js';
import { newSecret, signatureHeaders } from './signing.js';
import { checkWebhookUrl } from './url.js';

const events = z
  .string()
  .optional()
  .transform((v, ctx) => {
    const list = [...new Set((v ?? '*').split(',').map((s) => s.trim()).filter(Boolean))];
    if (list.length === 0 || list.includes('all') || list.includes('*')) return ['*'];
    const unknown = list.find((s) => !(EVENT_TYPES as readonly string[]).includes(s));
    if (unknown !== undefined) {
      ctx.addIssue({ code: 'custom', message: `unknown event "${unknown}": use all, or some of ${EVENT_TYPES.join(', ')}` });
      return z.NEVER;
    }
    return list;
  });
const format = z.enum(FORMATS, { error: `format must be one of ${FORMATS.join(', ')}` }).default('auto');

async function requireEndpoint(db: Queryable, id: string): Promise<Endpoint> {
  const endpoint = await findEndpoint(db, id);
  if (!endpoint) throw new ApiError('not_found', `no webhook ${id}`);
  return endpoint;
}

const present = (e: Endpoint) => ({
  id: e.id,
  accountId: e.accountId,
  url: e.url,
  events: e.events,
  format: e.format,
  deliversAs: bodyFormat(e.format, e.url),
  status: e.status,
  disabledAt: e.disabledAt,
  disabledReason: e.disabledReason,
  failingSince: e.failingSince,
  lastSuccessAt: e.lastSuccessAt,
  createdAt: e.createdAt,
});

async function sampleDevice(db: Queryable, accountId: string): Promise<PayloadDevice | null> {
  const rows = await db.query<PayloadDevice>('SELECT id, name, plate, imei FROM devices WHERE account_id = $1 ORDER BY created_at, id LIMIT 1', [accountId]);
  return rows[0] ?? null;
}

export const webhookCommands = {
  'webhooks add': {
    input: z.object({ account: accountId, url: z.string({ error: 'url is required (--url URL)' }), events, format }),
    async run(ctx: AdminContext, input: { account: string; url: string; events: string[]; format: Format }) {
      await requireAccount(ctx.db, input.account);
      const url = await checkWebhookUrl(input.url, { allowHttp: ctx.config.WEBHOOK_ALLOW_HTTP, allowPrivate: ctx.config.WEBHOOK_ALLOW_PRIVATE });
      const secret = newSecret();
      const endpoint = await insertEndpoint(ctx.db, { accountId: input.account, url, events: input.events, format: input.format, secret });
      return { ...present(endpoint), secret };
    },
  },
  'webhooks list': {
    input: z.object({ account: accountId }),
    async run(ctx: AdminContext, input: { account: string }) {
      await requireAccount(ctx.db, input.account);
      return { webhooks: (await listEndpoints(ctx.db, input.account)).map((e) => ({ ...present(e), pending: e.pending })) };
    },
  },
  'webhooks remove': {
    input: z.object({ webhook: webhookId('webhooks remove WEBHOOK_ID') }),
    async run(ctx: AdminContext, input: { webhook: string }) {
      if (!(await removeEndpoint(ctx.db, input.webhook))) throw new ApiError('not_found', `no webhook ${input.webhook}`);
      return { id: input.webhook, removed: true };
    },
  },
  'webhooks enable': {
    input: z.object({ webhook: webhookId('webhooks enable WEBHOOK_ID') }),
    async run(ctx: AdminContext, input: { webhook: string }) {
      const endpoint = await ctx.db.transaction((tx) => enableEndpoint(tx, input.webhook));
      if (!endpoint) throw new ApiError('not_found', `no webhook ${input.webhook}`);
      return present(endpoint);
    },
  },
  'webhooks test': {
    input: z.object({ webhook: webhookId('webhooks test WEBHOOK_ID') }),
    async run(ctx: AdminContext, input: { webhook: string }) {
      const endpoint = await requireEndpoint(ctx.db, input.webhook);
      const secret = (await endpointSecret(ctx.db, endpoint.id))!;
      const format = bodyFormat(endpoint.format, endpoint.url);
      const body = renderBody(format, testPayload(await sampleDevice(ctx.db, endpoint.accountId)));
      const messageId = `msg_test_${randomBytes(10).toString('hex')}`;
      const sender = webhookSender(ctx.config);
      const attemptedAt = new Date();
      try {
        const result = await sender.send(endpoint.url, body, signatureHeaders(secret, messageId, body));
        await recordTestAttempt(ctx.db, endpoint.id, messageId, attemptedAt, result);
        return { id: endpoint.id, messageId, deliversAs: format, ok: result.ok, statusCode: result.statusCode, error: result.error, durationMs: result.durationMs };
      } finally {
        sender.close();
      }
    },
  },
  'webhooks deliveries': {
    input: z.object({ webhook: webhookId('webhooks deliveries WEBHOOK_ID'), limit: z.coerce.number({ error: LIMIT }).int(LIMIT).min(1, LIMIT).max(1000, LIMIT).default(20) }),
    async run(ctx: AdminContext, input: { webhook: string; limit: number }) {
      const endpoint = await requireEndpoint(ctx.db, input.webhook);
      return { webhook: present(endpoint), deliveries: await deliveryCounts(ctx.db, endpoint.id), attempts: await listAttempts(ctx.db, endpoint.id, input.limit) };
    },
  },
} as const;
