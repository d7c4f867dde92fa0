// An in-process gateway in front of a stand-in tracker, for supertest, with its log lines captured.
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { createGateway, type Gateway } from '../../gateway/app.js';
import { parseConfig, type Config } from '../../shared/config.js';
import { createLogger } from '../../shared/logger.js';
import { publicKeyFrom } from '../../shared/tokens.js';
import type { StandInTracker } from './stand-in-tracker.js';

export interface TestGateway extends Gateway {
  /** Every log line the gateway wrote, raw JSON text. */
  logs: string[];
  config: Config;
}

/** A Redis key prefix no other run shares, so runs never see each other's counts. */
export function uniquePrefix(): string {
  return `test:${process.pid}:${randomBytes(4).toString('hex')}:`;
}

/** Settings as the environment would give them; generous limits unless a test sets its own. */
export function gatewaySettings(tracker: StandInTracker, env: Record<string, string> = {}): Record<string, string> {
  return {
    TRACKER_URL: tracker.url,
    JWT_PUBLIC_KEY: tracker.publicKeyPem,
    GATEWAY_SECRET: tracker.gatewaySecret,
    LOG_LEVEL: 'info',
    RATE_LIMIT_READ_PER_MINUTE: '100000',
    RATE_LIMIT_WRITE_PER_MINUTE: '100000',
    RATE_LIMIT_COMMANDS_PER_MINUTE: '100000',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: '100000',
    RATE_LIMIT_PREFIX: uniquePrefix(),
    ...env,
  };
}

export function startTestGateway(tracker: StandInTracker, env: Record<string, string> = {}): TestGateway {
  const config = parseConfig(gatewaySettings(tracker, env));
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  const gateway = createGateway({
    config,
    logger: createLogger('gateway', config.LOG_LEVEL, sink),
    publicKey: publicKeyFrom(tracker.publicKeyPem),
    gatewaySecret: tracker.gatewaySecret,
  });
  return Object.assign(gateway, { logs, config });
}
