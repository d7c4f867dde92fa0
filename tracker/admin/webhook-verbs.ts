// The operator CLI's verbs for outbound webhooks: add (the secret is shown this once), list, remove,
// enable again, send a test message, read an endpoint's delivery log, and queue failed deliveries again.
import { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import { EVENT_TYPES } from '../events/types.js';
import type { Queryable } from '../storage/db.js';
import { addEndpoint, sendTestMessage } from '../webhooks/actions.js';
import { deliveryCounts, listAttempts, retryFailed } from '../webhooks/deliveries.js';
import { enableEndpoint, findEndpoint, listEndpoints, removeEndpoint, type Endpoint } from '../webhooks/endpoints.js';
import { FORMATS, bodyFormat, type Format } from '../webhooks/formats/index.js';
import type { AdminContext } from './admin-context.js';
import { LIMIT, accountId, requireAccount, webhookId } from './inputs.js';

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
const since = z
  .string({ error: 'since is required (--since 2026-01-31T08:00:00Z)' })
  .refine((v) => /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(v) && !Number.isNaN(Date.parse(v)), {
    message: 'since must be an ISO 8601 time with its zone (2026-01-31T08:00:00Z) or a date (2026-01-31)',
  })
  .transform((v) => new Date(v));
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

export const webhookVerbs = {
  'webhooks add': {
    input: z.object({ account: accountId, url: z.string({ error: 'url is required (--url URL)' }), events, format }),
    async run(ctx: AdminContext, input: { account: string; url: string; events: string[]; format: Format }) {
      await requireAccount(ctx.db, input.account);
      const { endpoint, secret } = await addEndpoint(ctx.db, ctx.config, { accountId: input.account, url: input.url, events: input.events, format: input.format });
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
      return { id: endpoint.id, ...(await sendTestMessage(ctx.db, ctx.config, endpoint)) };
    },
  },
  'webhooks deliveries': {
    input: z.object({ webhook: webhookId('webhooks deliveries WEBHOOK_ID'), limit: z.coerce.number({ error: LIMIT }).int(LIMIT).min(1, LIMIT).max(1000, LIMIT).default(20) }),
    async run(ctx: AdminContext, input: { webhook: string; limit: number }) {
      const endpoint = await requireEndpoint(ctx.db, input.webhook);
      return { webhook: present(endpoint), deliveries: await deliveryCounts(ctx.db, endpoint.id), attempts: await listAttempts(ctx.db, endpoint.id, input.limit) };
    },
  },
  'webhooks retry': {
    input: z.object({ webhook: webhookId('webhooks retry WEBHOOK_ID --since TIME'), since }),
    async run(ctx: AdminContext, input: { webhook: string; since: Date }) {
      const retried = await retryFailed(ctx.db, input.webhook, input.since);
      if (!retried) throw new ApiError('not_found', `no webhook ${input.webhook}`);
      return { id: input.webhook, since: input.since, ...retried };
    },
  },
} as const;
