// What the tracker's parts share at run time: settings, database, logger, keys, metrics, and the
// live feed's publisher.
import type { KeyObject } from 'node:crypto';
import type { TrackerConfig } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import type { FeedPublisher } from './feed/publisher.js';
import type { TrackerMetrics } from './metrics.js';
import type { Db } from './storage/db.js';

export interface TrackerContext {
  config: TrackerConfig;
  db: Db;
  logger: Logger;
  privateKey: KeyObject;
  gatewaySecret: string;
  metrics: TrackerMetrics;
  /** Committed changes are handed to it for the live feed. */
  feed: FeedPublisher;
}
