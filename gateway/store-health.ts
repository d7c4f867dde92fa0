// The rate-limit store's health: every failed store call is counted, an outage is logged once
// when it starts and once when it ends, and failures are marked so the limits can fail open or
// closed as configured. After a failure the store is not asked at all for a while (a breaker), so
// no request waits out a command timeout while the store hangs; a probe in the background finds
// out when it answers again.
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import type { Logger } from '../shared/logger.js';

/** A store call failed (Redis down, timed out, refused); carries the cause for the log. */
export class StoreFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('rate-limit store failed');
  }
}

/** The store is skipped this long after a failure, twice as long after each failed probe, up to the most. */
export const BREAKER_FIRST_MS = 1000;
export const BREAKER_MOST_MS = 30_000;
const SKIPPED = new Error('rate-limit store skipped after a recent failure');

export class StoreHealth {
  /** Store calls that failed since start: the counter operators alert on. */
  failures = 0;
  /** Store calls not made because the store failed recently (answered as a failure at once). */
  skipped = 0;
  down = false;
  private skipUntil = 0;
  private skipMs = BREAKER_FIRST_MS;
  private probing = false;

  /** probe: one cheap call to the store (Redis PING); without one, a failure never stops the calls. */
  constructor(
    private readonly logger: Logger,
    private readonly mode: 'open' | 'closed',
    private readonly probe?: () => Promise<unknown>,
  ) {}

  failed(cause: unknown): void {
    this.failures++;
    if (this.probe && this.skipUntil === 0) this.skipUntil = Date.now() + this.skipMs;
    if (this.down) return;
    this.down = true;
    const error = cause instanceof Error ? cause.message : String(cause);
    const effect = this.mode === 'open' ? 'requests are served without limits' : 'requests are refused with 503';
    this.logger.error({ error, failures: this.failures }, `rate-limit store unavailable: ${effect}`);
  }

  ok(): void {
    this.skipUntil = 0;
    this.skipMs = BREAKER_FIRST_MS;
    if (!this.down) return;
    this.down = false;
    this.logger.warn({ failures: this.failures }, 'rate-limit store available again: limiting resumed');
  }

  /**
   * Whether a store call should be skipped: the store failed recently, or its probe has not answered
   * yet. Once the interval is over, the probe is started here, and its answer ends the skipping or
   * doubles the interval.
   */
  skipping(): boolean {
    if (this.skipUntil === 0) return false;
    if (!this.probing && Date.now() >= this.skipUntil) {
      this.probing = true;
      this.probe!().then(
        () => this.ok(),
        (err: unknown) => {
          this.skipMs = Math.min(this.skipMs * 2, BREAKER_MOST_MS);
          this.skipUntil = 0; // so the failure opens the breaker again, for the longer interval
          this.failed(err);
        },
      ).finally(() => (this.probing = false));
    }
    return true;
  }

  /** A skipped call, answered as failed without waiting. */
  skip(): StoreFailure {
    this.skipped++;
    return new StoreFailure(SKIPPED);
  }
}

/** Wraps a store so its failures are counted and recognisable; results pass through unchanged. */
export class GuardedStore implements Store {
  constructor(
    private readonly inner: Store,
    private readonly health: StoreHealth,
  ) {}

  get prefix(): string | undefined {
    return this.inner.prefix;
  }

  init(options: Options): void {
    // RedisStore.init only loads scripts, which scriptSafeCommand answers locally: it cannot fail.
    void this.inner.init?.(options);
  }

  private async guard<T>(call: () => Promise<T> | T): Promise<T> {
    if (this.health.skipping()) throw this.health.skip();
    try {
      const result = await call();
      this.health.ok();
      return result;
    } catch (err) {
      this.health.failed(err);
      throw new StoreFailure(err);
    }
  }

  increment(key: string): Promise<IncrementResponse> {
    return this.guard(() => this.inner.increment(key));
  }

  decrement(key: string): Promise<void> {
    return this.guard(() => this.inner.decrement(key));
  }

  resetKey(key: string): Promise<void> {
    return this.guard(() => this.inner.resetKey(key));
  }

  get(key: string): Promise<ClientRateLimitInfo | undefined> {
    return this.guard(() => this.inner.get?.(key));
  }
}
