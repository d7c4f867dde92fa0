// The rate-limit store's health: every failed store call is counted, an outage is logged once
// when it starts and once when it ends, and failures are marked so the limits can fail open or
// closed as configured.
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit';
import type { Logger } from '../shared/logger.js';

/** A store call failed (Redis down, timed out, refused); carries the cause for the log. */
export class StoreFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('rate-limit store failed');
  }
}

export class StoreHealth {
  /** Store calls that failed since start: the counter operators alert on. */
  failures = 0;
  down = false;

  constructor(
    private readonly logger: Logger,
    private readonly mode: 'open' | 'closed',
  ) {}

  failed(cause: unknown): void {
    this.failures++;
    if (this.down) return;
    this.down = true;
    const error = cause instanceof Error ? cause.message : String(cause);
    const effect = this.mode === 'open' ? 'requests are served without limits' : 'requests are refused with 503';
    this.logger.error({ error, failures: this.failures }, `rate-limit store unavailable: ${effect}`);
  }

  ok(): void {
    if (!this.down) return;
    this.down = false;
    this.logger.warn({ failures: this.failures }, 'rate-limit store available again: limiting resumed');
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
