// Readable output for the operator CLI (without --json).
import type { VerbName } from './verbs.js';
import { formatWebhookResult, isWebhookVerb } from './webhook-output.js';

type Row = Record<string, unknown>;

const date = (v: unknown) => (v ? new Date(v as string).toISOString() : '-');

export function formatResult(name: VerbName, result: unknown): string {
  if (isWebhookVerb(name)) return formatWebhookResult(name, result);
  const r = result as Row;
  switch (name) {
    case 'accounts create':
      return `Account ${r.id} created (${r.name}).\n`;
    case 'accounts list': {
      const accounts = r.accounts as Row[];
      if (accounts.length === 0) return 'No accounts.\n';
      return accounts.map((a) => `${a.id}  ${String(a.devices).padStart(6)} devices  created ${date(a.createdAt)}  ${a.name}`).join('\n') + '\n';
    }
    case 'devices list': {
      const devices = r.devices as Row[];
      if (devices.length === 0) return 'No devices.\n';
      return devices.map((d) => `${d.id}  ${String(d.imei).padEnd(20)}  ${String(d.status).padEnd(7)}  last update ${date(d.lastUpdate)}  ${d.name}${d.plate ? `  (${d.plate})` : ''}`).join('\n') + '\n';
    }
    case 'devices update':
      return `Device ${r.id} updated: ${r.name}, identifier ${r.imei}${r.plate ? `, plate ${r.plate}` : ''}.\n`;
    case 'devices remove':
      return `Device ${r.id} removed; its positions were ${r.positions === 'kept' ? 'kept' : `removed (${r.positionsRemoved})`}.\n`;
    case 'devices add':
      return `Device ${r.id} added: ${r.name}, identifier ${r.imei}${r.plate ? `, plate ${r.plate}` : ''}.\n`;
    case 'devices key':
      return r.key === null
        ? `Device ${r.id}: report key cleared; its OsmAnd reports are accepted without one.\n`
        : `Device ${r.id}: report key set. It is shown this once; enter it in the phone app (parameter key):\n${r.key}\n`;
    case 'tokens create':
      return `Token ${r.id} created with scopes ${(r.scopes as string[]).join(',')}.\nThe token is shown this once; store it now:\n${r.token}\n`;
    case 'tokens list': {
      const tokens = r.tokens as Row[];
      if (tokens.length === 0) return 'No tokens.\n';
      return tokens
        .map((t) => `${t.id}  ${String(t.status).padEnd(7)}  ${(t.scopes as string[]).join(',').padEnd(19)}  created ${date(t.createdAt)}  last used ${date(t.lastUsedAt)}  ${t.name}`)
        .join('\n') + '\n';
    }
    case 'tokens revoke':
      return `Token ${r.id} revoked at ${date(r.revokedAt)}.\n`;
    case 'inbound add':
      return [
        `Inbound webhook ${r.id} created (${r.action}): ${r.name}.`,
        `URL:    ${r.url}`,
        `Secret: ${r.secret}`,
        'The secret is shown this once; store it now. Callers POST JSON to the URL with ?secret=<secret>.',
        '',
      ].join('\n');
    case 'inbound list': {
      const webhooks = r.webhooks as Row[];
      if (webhooks.length === 0) return 'No inbound webhooks.\n';
      return webhooks.map((w) => `${w.id}  ${String(w.action).padEnd(17)}  created ${date(w.createdAt)}  last call ${date(w.lastCallAt)}  ${w.name}  ${w.url}`).join('\n') + '\n';
    }
    case 'inbound remove':
      return `Inbound webhook ${r.id} removed; its URL no longer works.\n`;
    case 'inbound calls': {
      const calls = r.calls as Row[];
      if (calls.length === 0) return `No calls to ${r.webhookId}.\n`;
      return calls.map(formatCall).join('\n') + '\n';
    }
    case 'users list': {
      const users = r.users as Row[];
      if (users.length === 0) return 'No dashboard users.\n';
      return users.map((u) => `${u.id}  ${u.passwordSet ? 'password set ' : 'no password  '}  created ${date(u.createdAt)}  ${u.email}`).join('\n') + '\n';
    }
    case 'users remove':
      return `Dashboard user ${r.id} (${r.email}) removed; their sessions are signed out.\n`;
    case 'users create':
    case 'users reset-password':
      return `${name === 'users create' ? 'Dashboard user' : 'New password link for'} ${r.id} (${r.email}, account ${r.accountId}).\nSend this link to the user to set the password; it works once, until ${date(r.expiresAt)}:\n${r.setPasswordUrl}\n`;
  }
}

/** One call per line: time, status, what came of it, then key, address and (log_only) the body. */
function formatCall(c: Row): string {
  const outcome = c.error ? `refused: ${c.error}` : `${c.replayed ? 'replayed' : 'accepted'} ${c.recordId ?? c.id}`;
  const body = c.body === null || c.error ? '' : `  ${JSON.stringify(c.body).slice(0, 200)}`;
  const key = c.idempotencyKey ? `  key ${c.idempotencyKey}` : '';
  return `${date(c.receivedAt)}  ${c.status}  ${outcome}${key}  from ${c.clientAddress ?? '-'}${body}`;
}
