// One HTTP attempt of an outbound webhook: POST with got, 15 s for the whole exchange, redirects not followed,
// no retries of its own (the outbox retries), and at most a small piece of the response read.
// Connections go through agents whose DNS lookup refuses forbidden addresses (see ssrf.ts).
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import got, { type Got } from 'got';
import type { WebhookFailureReason } from '../metrics.js';
import { answerExcerpt } from './excerpt.js';
import { assertAllowedLiteral, guardedLookup } from './ssrf.js';

export interface SendOptions {
  allowHttp: boolean;
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Sockets per receiving host. */
  maxSockets?: number;
}

export interface SendResult {
  ok: boolean;
  /** The HTTP status, when the receiver answered. */
  statusCode: number | null;
  /** What went wrong, for the delivery log; null on success. */
  error: string | null;
  /** The kind of failure, for the metrics; null on success. */
  failure: WebhookFailureReason | null;
  /** The receiver's Retry-After header, as given. */
  retryAfter: string | null;
  durationMs: number;
}

const TIMEOUT_MS = 15_000;
/** Response bytes kept for the log; the rest is never read. */
const BODY_CAP = 1024;
const USER_AGENT = 'FleetTracker-Webhooks/1.0';

export class WebhookSender {
  private readonly agents: { http: HttpAgent; https: HttpsAgent };
  private readonly timeoutMs: number;
  private readonly client: Got;

  constructor(private readonly options: SendOptions) {
    this.timeoutMs = options.timeoutMs ?? TIMEOUT_MS;
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 16, ...(options.allowPrivate ? {} : { lookup: guardedLookup }) };
    this.agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
    // Options merged once here rather than on every request.
    this.client = got.extend({
      agent: this.agents,
      timeout: { request: this.timeoutMs },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      decompress: false,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
    });
  }

  /** Why this URL may not be used under the current settings, or null. */
  refusal(url: URL): string | null {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.options.allowHttp)) {
      return this.options.allowHttp ? 'only http and https URLs are allowed' : 'only https URLs are allowed (WEBHOOK_ALLOW_HTTP is off)';
    }
    if (!this.options.allowPrivate) {
      try {
        assertAllowedLiteral(url);
      } catch (err) {
        return (err as Error).message;
      }
    }
    return null;
  }

  async send(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const refused = this.refusal(new URL(url));
    if (refused) return { ok: false, statusCode: null, error: refused, failure: 'network', retryAfter: null, durationMs: 0 };

    return new Promise((resolve) => {
      let statusCode: number | null = null;
      let retryAfter: string | null = null;
      let location: string | null = null;
      const chunks: Buffer[] = [];
      let kept = 0;
      let settled = false;
      const stream = this.client.stream.post(url, { body, headers });
      // Read to the end, the connection stays open for the next request; cut short, it is closed.
      const finish = (complete: boolean) => {
        if (settled) return;
        settled = true;
        if (!complete) stream.destroy();
        const ok = statusCode !== null && statusCode >= 200 && statusCode < 300;
        const error = ok ? null : describeStatus(statusCode!, location, Buffer.concat(chunks).toString('utf8'));
        resolve({ ok, statusCode, error, failure: ok ? null : 'status', retryAfter, durationMs: elapsed() });
      };
      stream.on('response', (res: { statusCode: number; headers: Record<string, string | string[] | undefined> }) => {
        statusCode = res.statusCode;
        retryAfter = first(res.headers['retry-after']);
        location = first(res.headers.location);
      });
      stream.on('data', (chunk: Buffer) => {
        if (kept < BODY_CAP) chunks.push(chunk.subarray(0, BODY_CAP - kept));
        kept += chunk.length;
        if (kept > BODY_CAP) finish(false);
      });
      stream.on('end', () => finish(true));
      stream.on('error', (err: Error & { code?: string }) => {
        if (settled) return;
        settled = true;
        const failure = err.code === 'ETIMEDOUT' ? 'timeout' : 'network';
        resolve({ ok: false, statusCode: null, error: describeError(err, this.timeoutMs), failure, retryAfter: null, durationMs: elapsed() });
      });
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] ?? null : v ?? null);

function describeStatus(status: number, location: string | null, body: string): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed${location ? ' (the receiver redirects elsewhere)' : ''}`;
  const text = answerExcerpt(body);
  return `HTTP ${status}${text ? `: ${text}` : ''}`;
}

function describeError(err: Error & { code?: string }, timeoutMs: number): string {
  if (err.code === 'ETIMEDOUT') return `no answer within ${timeoutMs / 1000} s`;
  const cause = (err as { cause?: Error & { code?: string } }).cause;
  const code = cause?.code ?? err.code;
  const message = (cause?.message ?? err.message).slice(0, 300);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
