// Readable output of the webhook commands for the operator CLI (without --json).
import type { webhookVerbs } from './webhook-verbs.js';

export type WebhookVerbName = keyof typeof webhookVerbs;

type Row = Record<string, unknown>;

const date = (v: unknown) => (v ? new Date(v as string).toISOString() : '-');
const events = (list: unknown) => ((list as string[]).includes('*') ? 'all events' : (list as string[]).join(','));

export function isWebhookVerb(name: string): name is WebhookVerbName {
  return name.startsWith('webhooks ');
}

function endpointLine(w: Row): string {
  const state = w.status === 'enabled' ? (w.failingSince ? `failing since ${date(w.failingSince)}` : 'enabled') : `disabled (${w.disabledReason ?? 'by the operator'})`;
  return `${w.id}  ${state}  ${w.deliversAs}  ${events(w.events)}  ${w.url}`;
}

function attemptLine(a: Row): string {
  const outcome = a.statusCode !== null && !a.error ? `${a.statusCode}` : `${a.error}`;
  const next = a.nextAttemptAt ? `  next attempt ${date(a.nextAttemptAt)}` : '';
  return `${date(a.attemptedAt)}  ${a.messageId}  ${a.eventType}  ${a.durationMs} ms  ${outcome}${next}`;
}

export function formatWebhookResult(name: WebhookVerbName, result: unknown): string {
  const r = result as Row;
  switch (name) {
    case 'webhooks add':
      return `Webhook ${r.id} added: ${events(r.events)} to ${r.url} as ${r.deliversAs}.\nThe signing secret is shown this once; store it now:\n${r.secret}\n`;
    case 'webhooks list': {
      const list = r.webhooks as Row[];
      if (list.length === 0) return 'No webhooks.\n';
      return list.map((w) => `${endpointLine(w)}  (${w.pending} pending)`).join('\n') + '\n';
    }
    case 'webhooks remove':
      return `Webhook ${r.id} removed, with its pending deliveries and its log.\n`;
    case 'webhooks enable':
      return `Webhook ${r.id} enabled; deliveries that waited are sent now.\n`;
    case 'webhooks test':
      return r.ok
        ? `Test message ${r.messageId} delivered (${r.deliversAs}): HTTP ${r.statusCode} in ${r.durationMs} ms.\n`
        : `Test message ${r.messageId} failed (${r.deliversAs}): ${r.error}.\n`;
    case 'webhooks retry':
      return `Webhook ${r.id}: ${r.requeued} failed ${r.requeued === 1 ? 'delivery' : 'deliveries'} since ${date(r.since)} queued again${r.enabled ? '; the webhook was disabled and is enabled again' : ''}.\n`;
    case 'webhooks deliveries': {
      const d = r.deliveries as Row;
      const attempts = r.attempts as Row[];
      const head = `${endpointLine(r.webhook as Row)}\n${d.pending} pending, ${d.delivered} delivered, ${d.failed} failed.\n`;
      return attempts.length === 0 ? `${head}No attempts yet.\n` : `${head}${attempts.map(attemptLine).join('\n')}\n`;
    }
  }
}
