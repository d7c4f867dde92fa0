// Outbound webhook signatures in the Standard Webhooks scheme (standardwebhooks.com), so receivers verify
// with off-the-shelf libraries: HMAC-SHA256 over "<id>.<timestamp>.<body>", keyed with the bytes
// of the secret after its whsec_ prefix, sent as "v1,<base64>".
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret: whsec_ and the base64 of 32 random bytes. */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function sign(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/** The headers of one attempt; the timestamp is the attempt's own, so a retry is signed afresh. */
export function signatureHeaders(secret: string, messageId: string, body: string, now = Date.now()): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const signature = sign(secret, messageId, timestamp, body);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
    'x-service-signature': signature,
  };
}
