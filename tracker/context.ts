// What the tracker's parts share at run time: settings, database, logger, keys, metrics.
import type { KeyObject } from 'node:crypto';
import type { TrackerConfig } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import type { TrackerMetrics } from './metrics.js';
import type { Db } from './storage/db.js';

export interface TrackerContext {
  config: TrackerConfig;
  db: Db;
  logger: Logger;
  privateKey: KeyObject;
  gatewaySecret: string;
  metrics: TrackerMetrics;
}
