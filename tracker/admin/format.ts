// Readable output for the operator CLI (without --json).
import { formatWebhookResult, isWebhookCommand } from '../webhooks/cli-output.js';
import type { CommandName } from './commands.js';

type Row = Record<string, unknown>;

const date = (v: unknown) => (v ? new Date(v as string).toISOString() : '-');

export function formatResult(name: CommandName, result: unknown): string {
  if (isWebhookCommand(name)) return formatWebhookResult(name, result);
  const r = result as Row;
  switch (name) {
    case 'accounts create':
      return `Account ${r.id} created (${r.name}).\n`;
    case 'devices add':
      return `Device ${r.id} added: ${r.name}, identifier ${r.imei}${r.plate ? `, plate ${r.plate}` : ''}.\n`;
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
  }
}
