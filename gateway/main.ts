// Gateway process entry point: settings, keys (public key and link secret only), the HTTP server,
// the internal metrics listener, graceful stop on SIGTERM/SIGINT.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { loadConfig, parseGatewayConfig } from '../shared/config.js';
import { closeServer } from '../shared/http.js';
import { gatewayKeys } from '../shared/keys.js';
import { createLogger } from '../shared/logger.js';
import { serveMetrics } from '../shared/metrics.js';
import { publicKeyFrom } from '../shared/tokens.js';
import { createGateway } from './app.js';
import { redisReady } from './redis.js';

const config = loadConfig(parseGatewayConfig);
// A log line per request must not cost a write(2) per request: lines are written asynchronously
// in batches of at least 4 KiB, and at least every LOG_FLUSH_MS when traffic is light. A crash can
// lose that last batch; a normal stop flushes it.
const LOG_FLUSH_MS = 250;
const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
setInterval(() => destination.flush(), LOG_FLUSH_MS).unref();
const logger = createLogger('gateway', config.LOG_LEVEL, destination);

try {
  const keys = gatewayKeys(config);
  const gateway = createGateway({ config, logger, publicKey: publicKeyFrom(keys.publicKeyPem), gatewaySecret: keys.gatewaySecret });
  if (gateway.redis && !(await redisReady(gateway.redis, 2000))) {
    logger.warn('Redis not reachable yet: serving, and limiting as soon as it answers');
  }

  const server = createServer(gateway.app);
  server.keepAliveTimeout = 65_000; // longer than nginx's upstream keepalive_timeout
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.GATEWAY_PORT, config.GATEWAY_HOST, resolve);
  });
  const metrics = await serveMetrics(gateway.metrics.registry, config.GATEWAY_METRICS_PORT, config.METRICS_HOST);
  const port = (server.address() as AddressInfo).port;
  logger.info({ port, metricsPort: metrics.port, tracker: config.TRACKER_URL, limits: gateway.redis ? 'redis' : 'memory' }, 'gateway started');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'gateway stopping');
    const exit = (code: number) => {
      destination.flushSync();
      process.exit(code);
    };
    // New connections are refused at once; requests in flight finish until the deadline, when the
    // rest is cut. The timer is the last resort should closing itself hang.
    const graceMs = config.SHUTDOWN_TIMEOUT_SECONDS * 1000;
    setTimeout(() => exit(1), graceMs + 2000).unref();
    closeServer(server, Date.now() + graceMs)
      .then((inTime) => {
        if (!inTime) logger.warn({ graceSeconds: config.SHUTDOWN_TIMEOUT_SECONDS }, 'requests still in flight at the deadline were cut');
        return Promise.all([gateway.close(), metrics.close()]);
      })
      .then(
        () => {
          logger.info('gateway stopped');
          exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'gateway stop failed');
          exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  logger.fatal({ err }, 'gateway failed to start');
  destination.flushSync();
  process.exit(1);
}
