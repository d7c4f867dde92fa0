// Starts and stops the tracker: storage, the internal HTTP server, the device side, webhook delivery,
// the live feed, the demo data.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TrackerConfig } from '../shared/config.js';
import { closeServer } from '../shared/http.js';
import type { Logger } from '../shared/logger.js';
import { loadTrackerKeys, lockTrackerDataDir, openReads, openStorage } from './boot.js';
import { CommandDispatcher } from './commands/dispatcher.js';
import type { TrackerContext } from './context.js';
import { seedDemo, startDemoTraffic } from './demo.js';
import type { EventListener } from './events/types.js';
import { FeedPublisher } from './feed/publisher.js';
import { createTrackerApp } from './http/app.js';
import { exposeDatabaseUp } from './http/health.js';
import { startInboundMaintenance } from './inbound/retention.js';
import { startIngest, type Ingest } from './ingest/index.js';
import { trackerMetrics } from './metrics.js';
import { startReportKeeper } from './reports/keeper.js';
import { maintainPartitions } from './storage/partitions.js';
import { periodicJobs } from './storage/periodic.js';
import { startLiveFeed, type LiveFeed } from './stream/index.js';
import { startSignInSweep } from './users/sweep.js';
import { startWebhooks, type Webhooks } from './webhooks/index.js';
import { enqueueDeliveries } from './webhooks/outbox.js';

/** Longest a committed change waits to be published to the live feed (ms). */
const FEED_BATCH_MS = 2;
const PARTITIONS_EVERY_MS = 6 * 3_600_000;

export interface RunningTracker {
  ctx: TrackerContext;
  httpPort: number;
  ingest: Ingest;
  live: LiveFeed;
  webhooks: Webhooks;
  /** Listeners handed every stored event in its transaction; add to it to receive events. */
  onEvents: EventListener[];
  /**
   * Graceful stop within SHUTDOWN_TIMEOUT_SECONDS: no new connections on any port, API requests in
   * flight answered, device frames received so far stored and ACKed, then the database closed.
   */
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startTracker(config: TrackerConfig, logger: Logger): Promise<RunningTracker> {
  const db = await openStorage(config, await lockTrackerDataDir(config, logger));
  const metrics = trackerMetrics();
  // Periodic work (partitions, sweeps, expiry, retention) runs in one tracker per period.
  const jobs = periodicJobs(db, logger, (job) => metrics.scheduledJobRuns.inc({ job }));
  const feed = new FeedPublisher(db, logger, { maxDelayMs: FEED_BATCH_MS, retentionSeconds: config.STREAM_RETENTION_SECONDS }, jobs);
  await feed.start();
  const reads = await openReads(config, db, logger);
  const ctx: TrackerContext = { config, db, reads, logger, metrics, feed, jobs, ...loadTrackerKeys(config) };
  exposeDatabaseUp(ctx.metrics.registry, db);
  // At start-up in every tracker (its partitions must exist before it stores), then in one per period.
  await maintainPartitions(db, config.POSITIONS_RETENTION_DAYS);
  const stopPartitions = jobs.every('partitions', PARTITIONS_EVERY_MS, () => maintainPartitions(db, config.POSITIONS_RETENTION_DAYS));
  await seedDemo(ctx);
  const stopInboundMaintenance = await startInboundMaintenance(ctx);
  const stopSweep = startSignInSweep(ctx);
  const stopReportKeeper = startReportKeeper(ctx);

  const live = await startLiveFeed(ctx);
  const http = createServer(createTrackerApp(ctx, live));
  http.keepAliveTimeout = 65_000; // longer than the gateway agent's idle sockets
  const httpPort = await listen(http, config.TRACKER_HTTP_PORT, config.TRACKER_HOST);
  // Outbound webhooks queue their deliveries in the transaction that stores the events.
  const onEvents: EventListener[] = [enqueueDeliveries];
  const ingest = await startIngest(ctx, onEvents, (links) => new CommandDispatcher(db, links, logger, ctx.metrics.commands, jobs, (commands) => feed.commands(commands)));
  const webhooks = await startWebhooks(ctx);
  const demo = await startDemoTraffic(ctx, ingest.ports);

  return {
    ctx,
    httpPort,
    ingest,
    live,
    webhooks,
    onEvents,
    async close() {
      const deadline = Date.now() + config.SHUTDOWN_TIMEOUT_SECONDS * 1000;
      stopPartitions();
      stopInboundMaintenance();
      stopSweep();
      const keeperStopped = stopReportKeeper();
      demo?.stop();
      const streamsEnded = live.close();
      const [inTime] = await Promise.all([closeServer(http, deadline), ingest.close(deadline), webhooks.close(deadline)]);
      await Promise.all([streamsEnded, keeperStopped]);
      await feed.close(); // what the last batches committed, published before the database closes
      if (!inTime) logger.warn({ graceSeconds: config.SHUTDOWN_TIMEOUT_SECONDS }, 'API requests still in flight at the deadline were cut');
      if (reads !== db) await reads.close();
      await db.close();
    },
  };
}
