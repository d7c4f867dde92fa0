// Starts and stops the tracker: storage, the internal HTTP server, ingest, webhook delivery, the demo data.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import type { Config } from '../shared/config.js';
import type { Logger } from '../shared/logger.js';
import { loadTrackerKeys, openStorage } from './boot.js';
import type { TrackerContext } from './context.js';
import { seedDemo, startDemoTraffic } from './demo.js';
import { createTrackerApp } from './http/app.js';
import { startIngest, type Ingest } from './ingest/index.js';
import { maintainPartitions } from './storage/partitions.js';
import { startWebhooks, type Webhooks } from './webhooks/index.js';

export interface RunningTracker {
  ctx: TrackerContext;
  httpPort: number;
  ingest: Ingest;
  webhooks: Webhooks;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

export async function startTracker(config: Config, logger: Logger): Promise<RunningTracker> {
  const db = await openStorage(config);
  const ctx: TrackerContext = { config, db, logger, ...loadTrackerKeys(config) };
  await maintainPartitions(db, config.POSITIONS_RETENTION_DAYS);
  const partitionTimer = setInterval(() => {
    maintainPartitions(db, config.POSITIONS_RETENTION_DAYS).catch((err: unknown) => logger.error({ err }, 'partition maintenance failed'));
  }, 6 * 3_600_000).unref();
  await seedDemo(ctx);

  const http = createServer(createTrackerApp(ctx));
  http.keepAliveTimeout = 65_000; // longer than the gateway agent's idle sockets
  const httpPort = await listen(http, config.TRACKER_HTTP_PORT, config.TRACKER_HOST);
  const ingest = await startIngest(ctx);
  const webhooks = await startWebhooks(ctx);
  const demo = await startDemoTraffic(ctx, ingest.ports);
  logger.info({ httpPort, devicePorts: ingest.ports, database: db.kind }, 'tracker started');

  return {
    ctx,
    httpPort,
    ingest,
    webhooks,
    async close() {
      clearInterval(partitionTimer);
      demo?.stop();
      await ingest.close();
      await webhooks.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeIdleConnections();
      });
      await db.close();
    },
  };
}
