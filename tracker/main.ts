// Tracker process entry point: the tracker, its internal metrics listener, graceful stop on
// SIGTERM/SIGINT.
import { loadConfig, parseTrackerConfig } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { serveMetrics } from '../shared/metrics.js';
import { startTracker } from './server.js';
import { DataDirInUse } from './storage/data-dir-lock.js';

const config = loadConfig(parseTrackerConfig);
const logger = createLogger('tracker', config.LOG_LEVEL);

try {
  const tracker = await startTracker(config, logger);
  const metrics = await serveMetrics(tracker.ctx.metrics.registry, config.TRACKER_METRICS_PORT, config.METRICS_HOST);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'tracker stopping');
    // close() keeps to SHUTDOWN_TIMEOUT_SECONDS; the timer is the last resort should it hang.
    setTimeout(() => process.exit(1), config.SHUTDOWN_TIMEOUT_SECONDS * 1000 + 2000).unref();
    tracker
      .close()
      .then(() => metrics.close())
      .then(
        () => {
          logger.info('tracker stopped');
          process.exit(0);
        },
        (err: unknown) => {
          logger.error({ err }, 'tracker stop failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const { httpPort, ingest, ctx } = tracker;
  logger.info({ httpPort, devicePorts: ingest.ports, metricsPort: metrics.port, database: ctx.db.kind }, 'tracker started');
} catch (err) {
  if (err instanceof DataDirInUse) {
    logger.fatal({ dataDir: err.dataDir, ownerPid: err.owner.pid }, `tracker failed to start: ${err.message}`);
    process.exit(1);
  }
  logger.fatal({ err }, 'tracker failed to start');
  process.exit(1);
}
