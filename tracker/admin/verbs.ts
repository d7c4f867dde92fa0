// The operator CLI's verbs (named apart from the commands sent to devices, commands/), shared by the
// CLI (direct or through the tracker's internal endpoint) and the demo seed. Each validates its
// input with a schema and changes nothing on bad input; the rules for a device's fields and the
// issuing of tokens live with devices/ and tokens/, where the dashboard uses them too.
import { z } from 'zod';
import { isUniqueViolation } from '../../shared/db-errors.js';
import { ApiError } from '../../shared/errors.js';
import { newId } from '../../shared/ids.js';
import { INBOUND_ACTIONS, isInboundAction, type InboundAction } from '../../shared/inbound.js';
import { SCOPES, isScope, type Scope } from '../../shared/scopes.js';
import { requiredText } from '../../shared/validation.js';
import { createAccount, listAccounts } from '../accounts/repository.js';
import { deviceName, imei, plate } from '../devices/fields.js';
import { POSITIONS_CHOICES, disconnectDevice, removeDevice, type PositionsChoice } from '../devices/removal.js';
import { clearReportKey, reportKey, setReportKey } from '../devices/report-key.js';
import { addDevice, findAnyDevice, listDevices, updateDevice, type Device } from '../devices/repository.js';
import { listCalls } from '../inbound/calls.js';
import { createInboundWebhook, deleteInboundWebhook, findInboundWebhook, inboundUrl, listInboundWebhooks } from '../inbound/repository.js';
import { issueToken } from '../tokens/issue.js';
import { listTokens, revokeToken } from '../tokens/repository.js';
import { issuePasswordLink } from '../users/password-links.js';
import { createUser, email, findUserByEmail, listUsers, removeUser } from '../users/repository.js';
import type { AdminContext } from './admin-context.js';
import { LIMIT, accountId, requireAccount, webhookId } from './inputs.js';
import { webhookVerbs } from './webhook-verbs.js';

const scopes = z
  .string({ error: `scopes are required (--scopes, from ${SCOPES.join(',')})` })
  .transform((v, ctx) => {
    const list = [...new Set(v.split(',').map((s) => s.trim()).filter(Boolean))];
    const unknown = list.find((s) => !isScope(s));
    if (unknown !== undefined || list.length === 0) {
      ctx.addIssue({ code: 'custom', message: `unknown scope "${unknown ?? ''}": allowed scopes are ${SCOPES.join(', ')}` });
      return z.NEVER;
    }
    return list as Scope[];
  });

const action = z
  .string({ error: `action is required (--action, one of ${INBOUND_ACTIONS.join(', ')})` })
  .refine(isInboundAction, { error: (issue) => `unknown action "${String(issue.input)}": allowed actions are ${INBOUND_ACTIONS.join(', ')}` });

const deviceId = (usage: string) => z.string({ error: `device id is required (${usage})` }).min(1, `device id is required (${usage})`);

const positionsChoice = z
  .enum(POSITIONS_CHOICES, { error: (issue) => `--positions must be keep or remove${issue.input === undefined ? '' : `, not "${String(issue.input)}"`}` })
  .default('keep');

/** A device as the operator commands print it. */
const deviceOutput = (d: Device) => ({ id: d.id, accountId: d.accountId, imei: d.imei, name: d.name, plate: d.plate, status: d.status, protocol: d.protocol, lastUpdate: d.lastUpdate, createdAt: d.createdAt });

async function requireDevice(ctx: AdminContext, id: string): Promise<Device> {
  const device = await findAnyDevice(ctx.db, id);
  if (!device) throw new ApiError('not_found', `no device ${id}`);
  return device;
}

export const verbs = {
  'accounts list': {
    input: z.object({}),
    async run(ctx: AdminContext) {
      return { accounts: await listAccounts(ctx.db) };
    },
  },
  'accounts create': {
    input: z.object({ name: requiredText('account name (--name)', 200) }),
    async run(ctx: AdminContext, input: { name: string }) {
      const account = await createAccount(ctx.db, input.name);
      return { id: account.id, name: account.name };
    },
  },
  'devices add': {
    input: z.object({ account: accountId, imei, name: deviceName, plate: plate.optional() }),
    async run(ctx: AdminContext, input: { account: string; imei: string; name: string; plate?: string | undefined }) {
      await requireAccount(ctx.db, input.account);
      const d = await addDevice(ctx.db, { accountId: input.account, imei: input.imei, name: input.name, plate: input.plate });
      return { id: d.id, accountId: d.accountId, imei: d.imei, name: d.name, plate: d.plate };
    },
  },
  'devices list': {
    input: z.object({ account: accountId }),
    async run(ctx: AdminContext, input: { account: string }) {
      await requireAccount(ctx.db, input.account);
      return { devices: (await listDevices(ctx.db, input.account)).map(deviceOutput) };
    },
  },
  'devices update': {
    input: z
      .object({ device: deviceId('devices update DEVICE_ID'), name: deviceName.optional(), plate: plate.optional(), imei: imei.optional() })
      .refine((i) => i.name !== undefined || i.plate !== undefined || i.imei !== undefined, 'give at least one of --name, --plate, --imei'),
    async run(ctx: AdminContext, input: { device: string; name?: string | undefined; plate?: string | undefined; imei?: string | undefined }) {
      const device = await requireDevice(ctx, input.device);
      const updated = await ctx.db.transaction(async (tx) => {
        const d = await updateDevice(tx, device.accountId, device.id, input);
        if (!d) throw new ApiError('not_found', `no device ${input.device}`);
        if (d.imei !== device.imei) await disconnectDevice(tx, d.id);
        return d;
      });
      return deviceOutput(updated);
    },
  },
  'devices remove': {
    input: z.object({ device: deviceId('devices remove DEVICE_ID'), positions: positionsChoice }),
    async run(ctx: AdminContext, input: { device: string; positions: PositionsChoice }) {
      const removal = await removeDevice(ctx.db, await requireDevice(ctx, input.device), input.positions);
      if (!removal) throw new ApiError('not_found', `no device ${input.device}`);
      return { ...removal, removed: true };
    },
  },
  'devices key': {
    input: z
      .object({
        device: z.string({ error: 'device id is required (devices key DEVICE_ID --set|--clear)' }).min(1),
        set: z.boolean().optional(),
        clear: z.boolean().optional(),
        key: reportKey.optional(),
      })
      .refine((i) => Boolean(i.set) !== Boolean(i.clear), 'give one of --set or --clear')
      .refine((i) => i.key === undefined || i.set, '--key goes with --set'),
    async run(ctx: AdminContext, input: { device: string; set?: boolean | undefined; key?: string | undefined }) {
      if (input.set) {
        const key = await setReportKey(ctx.db, input.device, input.key);
        if (key === null) throw new ApiError('not_found', `no device ${input.device}`);
        return { id: input.device, key };
      }
      if (!(await clearReportKey(ctx.db, input.device))) throw new ApiError('not_found', `no device ${input.device}`);
      return { id: input.device, key: null };
    },
  },
  'tokens create': {
    input: z.object({ account: accountId, scopes, name: requiredText('token name (--name)', 200).optional() }),
    async run(ctx: AdminContext, input: { account: string; scopes: Scope[]; name?: string | undefined }) {
      await requireAccount(ctx.db, input.account);
      const { record, token } = await issueToken(ctx.db, ctx.privateKey, { accountId: input.account, name: input.name ?? 'API token', scopes: input.scopes }, ctx.config);
      return { id: record.id, accountId: record.accountId, name: record.name, scopes: record.scopes, token };
    },
  },
  'tokens list': {
    input: z.object({ account: accountId }),
    async run(ctx: AdminContext, input: { account: string }) {
      await requireAccount(ctx.db, input.account);
      const tokens = await listTokens(ctx.db, input.account);
      return { tokens: tokens.map((t) => ({ ...t, status: t.revokedAt ? 'revoked' : 'active' })) };
    },
  },
  'tokens revoke': {
    input: z.object({ token: z.string({ error: 'token id is required (tokens revoke TOKEN_ID)' }).min(1) }),
    async run(ctx: AdminContext, input: { token: string }) {
      const record = await revokeToken(ctx.db, input.token);
      if (!record) throw new ApiError('not_found', `no token ${input.token}`);
      return { id: record.id, revokedAt: record.revokedAt };
    },
  },
  'inbound add': {
    input: z.object({ account: accountId, action, name: requiredText('webhook name (--name)', 200).optional() }),
    async run(ctx: AdminContext, input: { account: string; action: InboundAction; name?: string | undefined }) {
      await requireAccount(ctx.db, input.account);
      const { webhook: w, secret } = await createInboundWebhook(ctx.db, { accountId: input.account, name: input.name ?? input.action, action: input.action });
      return { id: w.id, accountId: w.accountId, name: w.name, action: w.action, url: inboundUrl(ctx.config.PUBLIC_BASE_URL, w.id), secret, createdAt: w.createdAt };
    },
  },
  'inbound list': {
    input: z.object({ account: accountId }),
    async run(ctx: AdminContext, input: { account: string }) {
      await requireAccount(ctx.db, input.account);
      const webhooks = await listInboundWebhooks(ctx.db, input.account);
      return { webhooks: webhooks.map((w) => ({ ...w, url: inboundUrl(ctx.config.PUBLIC_BASE_URL, w.id) })) };
    },
  },
  'inbound remove': {
    input: z.object({ webhook: webhookId('inbound remove WEBHOOK_ID') }),
    async run(ctx: AdminContext, input: { webhook: string }) {
      const removed = await deleteInboundWebhook(ctx.db, input.webhook);
      if (!removed) throw new ApiError('not_found', `no inbound webhook ${input.webhook}`);
      return { id: removed.id, removed: true };
    },
  },
  'inbound calls': {
    input: z.object({
      webhook: webhookId('inbound calls WEBHOOK_ID'),
      limit: z.coerce.number({ error: LIMIT }).int(LIMIT).min(1, LIMIT).max(1000, LIMIT).default(50),
    }),
    async run(ctx: AdminContext, input: { webhook: string; limit: number }) {
      const webhook = await findInboundWebhook(ctx.db, input.webhook);
      if (!webhook) throw new ApiError('not_found', `no inbound webhook ${input.webhook}`);
      return { webhookId: webhook.id, calls: await listCalls(ctx.db, webhook.id, input.limit) };
    },
  },
  'users create': {
    input: z.object({ account: accountId, email }),
    async run(ctx: AdminContext, input: { account: string; email: string }) {
      await requireAccount(ctx.db, input.account);
      return ctx.db.transaction(async (tx) => {
        const user = await createUser(tx, { accountId: input.account, email: input.email });
        const link = await issuePasswordLink(tx, user.id, ctx.config);
        return { id: user.id, accountId: user.accountId, email: user.email, setPasswordUrl: link.url, expiresAt: link.expiresAt };
      });
    },
  },
  'users reset-password': {
    input: z.object({ email }),
    async run(ctx: AdminContext, input: { email: string }) {
      const user = await findUserByEmail(ctx.db, input.email);
      if (!user) throw new ApiError('not_found', `no dashboard user ${input.email}`);
      const link = await issuePasswordLink(ctx.db, user.id, ctx.config);
      return { id: user.id, accountId: user.accountId, email: user.email, setPasswordUrl: link.url, expiresAt: link.expiresAt };
    },
  },
  'users list': {
    input: z.object({ account: accountId }),
    async run(ctx: AdminContext, input: { account: string }) {
      await requireAccount(ctx.db, input.account);
      const users = await listUsers(ctx.db, input.account);
      return { users: users.map((u) => ({ id: u.id, accountId: u.accountId, email: u.email, passwordSet: u.passwordHash !== null, passwordSetAt: u.passwordSetAt, createdAt: u.createdAt })) };
    },
  },
  'users remove': {
    input: z.object({ email }),
    async run(ctx: AdminContext, input: { email: string }) {
      const user = await removeUser(ctx.db, input.email);
      if (!user) throw new ApiError('not_found', `no dashboard user ${input.email}`);
      return { id: user.id, accountId: user.accountId, email: user.email, removed: true };
    },
  },
  ...webhookVerbs,
} as const;

export type VerbName = keyof typeof verbs;

export function isVerbName(name: string): name is VerbName {
  return Object.hasOwn(verbs, name);
}

/** Validates and runs one command; bad input throws ApiError('bad_request') with the first problem. */
export async function runVerb(ctx: AdminContext, name: VerbName, args: Record<string, unknown>): Promise<unknown> {
  const verb = verbs[name];
  const parsed = verb.input.safeParse(args);
  if (!parsed.success) throw new ApiError('bad_request', parsed.error.issues[0]!.message);
  return (verb.run as (c: AdminContext, i: unknown) => Promise<unknown>)(ctx, parsed.data);
}
