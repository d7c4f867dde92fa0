// The operator commands, shared by the CLI (direct or through the tracker's internal endpoint) and,
// later, the dashboard. Each validates its input with a schema and changes nothing on bad input.
import type { KeyObject } from 'node:crypto';
import type { Config } from '../../shared/config.js';
import { z } from 'zod';
import { ApiError } from '../../shared/errors.js';
import { isUniqueViolation } from '../../shared/db-errors.js';
import { newId } from '../../shared/ids.js';
import { SCOPES, isScope, type Scope } from '../../shared/scopes.js';
import { signToken } from '../../shared/tokens.js';
import { createAccount } from '../accounts/repository.js';
import { addDevice } from '../devices/repository.js';
import type { Db } from '../storage/db.js';
import { insertToken, listTokens, revokeToken } from '../tokens/repository.js';
import { webhookCommands } from '../webhooks/commands.js';
import { accountId, requireAccount, text } from './inputs.js';

export interface AdminContext {
  db: Db;
  privateKey: KeyObject;
  /** Settings the webhook commands obey (http and private targets); the strict defaults without. */
  config?: Config;
}

const imei = z
  .string({ error: 'device identifier is required (--imei)' })
  .regex(/^[0-9]{5,20}$/, 'device identifier (--imei) must be 5 to 20 digits');
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

export const commands = {
  'accounts create': {
    input: z.object({ name: text('account name (--name)', 200) }),
    async run(ctx: AdminContext, input: { name: string }) {
      const account = await createAccount(ctx.db, input.name);
      return { id: account.id, name: account.name };
    },
  },
  'devices add': {
    input: z.object({ account: accountId, imei, name: text('device name (--name)', 200), plate: z.string().trim().max(32, 'plate must be at most 32 characters').optional() }),
    async run(ctx: AdminContext, input: { account: string; imei: string; name: string; plate?: string | undefined }) {
      await requireAccount(ctx.db, input.account);
      try {
        const d = await addDevice(ctx.db, { accountId: input.account, imei: input.imei, name: input.name, plate: input.plate });
        return { id: d.id, accountId: d.accountId, imei: d.imei, name: d.name, plate: d.plate };
      } catch (err) {
        if (isUniqueViolation(err)) throw new ApiError('conflict', `a device with identifier ${input.imei} already exists`);
        throw err;
      }
    },
  },
  'tokens create': {
    input: z.object({ account: accountId, scopes, name: text('token name (--name)', 200).optional() }),
    async run(ctx: AdminContext, input: { account: string; scopes: Scope[]; name?: string | undefined }) {
      await requireAccount(ctx.db, input.account);
      const id = newId('tok');
      const record = await insertToken(ctx.db, { id, accountId: input.account, name: input.name ?? 'API token', scopes: input.scopes });
      const token = signToken({ tokenId: id, accountId: input.account, scopes: input.scopes }, ctx.privateKey);
      return { id, accountId: record.accountId, name: record.name, scopes: record.scopes, token };
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
  ...webhookCommands,
} as const;

export type CommandName = keyof typeof commands;

export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(commands, name);
}

/** Validates and runs one command; bad input throws ApiError('bad_request') with the first problem. */
export async function runCommand(ctx: AdminContext, name: CommandName, args: Record<string, unknown>): Promise<unknown> {
  const command = commands[name];
  const parsed = command.input.safeParse(args);
  if (!parsed.success) throw new ApiError('bad_request', parsed.error.issues[0]!.message);
  return (command.run as (c: AdminContext, i: unknown) => Promise<unknown>)(ctx, parsed.data);
}
