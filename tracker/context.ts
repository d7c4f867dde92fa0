// What the tracker's parts share at run time: settings, database, logger, keys, metrics, and the
// live feed's publisher.
import type { KeyObject } from 'node:crypto';
import type { TrackerConfig } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import type { FeedPublisher } from './feed/publisher.js';
import type { TrackerMetrics } from './metrics.js';
import type { Db } from './storage/db.js';
import type { PeriodicJobs } from './storage/periodic.js';
import type { ReadDb } from './storage/read-replica.js';

export interface TrackerContext {
  config: TrackerConfig;
  db: Db;
  /**
   * Where reads that tolerate lag go (history, reports, the device and event lists): the read replica
   * (DATABASE_READ_URL) while it is fresh enough, else the primary; `db` itself without a replica.
   */
  reads: Db | ReadDb;
  logger: Logger;
  privateKey: KeyObject;
  gatewaySecret: string;
  metrics: TrackerMetrics;
  /** Committed changes are handed to it for the live feed. */
  feed: FeedPublisher;
  /** Periodic work done once across tracker processes. */
  jobs: PeriodicJobs;
}
