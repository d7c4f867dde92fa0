// Tracker process entry point.
import { loadConfig } from '../shared/config.js';
import { createLogger } from '../shared/logger.js';
import { startTracker } from './server.js';

const config = loadConfig();
const logger = createLogger('tracker', config.LOG_LEVEL);

try {
  const tracker = await startTracker(config, logger);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'tracker stopping');
    tracker.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'tracker stop failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
} catch (err) {
  logger.fatal({ err }, 'tracker failed to start');
  process.exit(1);
}
