// The device side of the tracker: TCP listeners, the OsmAnd HTTP listener, durable batched
// ingest judged for events in its own transactions, device connections and command delivery,
// started and stopped together.
import { PROTOCOL_PORTS, portSetting } from '../../shared/config.js';
import type { DeviceLinks } from '../commands/device-links.js';
import type { CommandDispatcher } from '../commands/dispatcher.js';
import type { TrackerContext } from '../context.js';
import { DEVICE_DISCONNECT_CHANNEL } from '../devices/removal.js';
import { EventEngine } from '../events/engine.js';
import type { EventListener } from '../events/types.js';
import { osmand } from '../protocols/osmand/index.js';
import { PROTOCOLS } from '../protocols/registry.js';
import { PositionBatcher } from './batcher.js';
import type { ConnectionDeps } from './connection.js';
import { DeviceConnections } from './connections.js';
import { startDeviceServers, type Listener } from './device-server.js';
import { startHttpReportServer } from './http-server.js';
import { exposeIngest } from './metrics.js';
import { IngestStats } from './stats.js';

const MAX_FRAME_BYTES = 64 * 1024;
/** How often devices past their offline grace period are looked for. */
const OFFLINE_SWEEP_MS = 1000;

export interface Ingest {
  ports: Record<string, number>;
  deps: ConnectionDeps;
  /**
   * Graceful stop: no new connections; what each connection received is stored and ACKed, then it
   * is ended; OsmAnd reports in flight are answered. Whatever is still open at the deadline is cut.
   */
  close(deadline: number): Promise<void>;
}

/**
 * `onEvents`: the listeners every stored event is handed to, in its transaction. `dispatcherFor`:
 * the command dispatcher the composition wires to this process's device connections; ingest starts
 * and stops it and hands it what devices answer.
 */
export async function startIngest(ctx: TrackerContext, onEvents: readonly EventListener[], dispatcherFor: (links: DeviceLinks) => CommandDispatcher): Promise<Ingest> {
  const { config, db, logger } = ctx;
  const events = new EventEngine(onEvents);
  const connections = new DeviceConnections(db, logger, events, (raised) => ctx.feed.events(raised));
  const dispatcher = dispatcherFor(connections);
  const deps: ConnectionDeps = {
    db,
    logger,
    connections,
    dispatcher,
    batcher: new PositionBatcher(db, logger, (tx, stored, reports, states) => events.judge(tx, stored, reports, states), {
      maxDelayMs: 20,
      maxRows: 2000,
      writers: db.kind === 'postgres' ? 2 : 1,
      sequence: {
        filters: { zero: config.FILTER_ZERO, future: config.FILTER_FUTURE, futureMarginMs: config.FILTER_FUTURE_MARGIN, jump: config.FILTER_JUMP, maxSpeedKmh: config.FILTER_MAX_SPEED_KMH },
        engineHoursMaxGapMs: config.ENGINE_HOURS_MAX_GAP,
      },
    }, (stored, raised) => {
      ctx.feed.positions(stored);
      ctx.feed.events(raised);
    }),
    stats: new IngestStats(),
    crcStrict: config.CRC_STRICT,
    plausible: { earliest: config.POSITION_EARLIEST_TIME, maxFutureMs: config.POSITION_MAX_FUTURE },
    takeover: config.DEVICE_TAKEOVER,
    loginTimeoutMs: config.LOGIN_TIMEOUT_SECONDS * 1000,
    idleTimeoutMs: config.DEVICE_TIMEOUT_SECONDS * 1000,
    maxFrameBytes: MAX_FRAME_BYTES,
  };
  exposeIngest(ctx.metrics.registry, deps);
  await dispatcher.start();

  const dedicated = Object.keys(PROTOCOL_PORTS).map((name) => ({ name, port: config[portSetting(name) as keyof typeof config] as number }));
  const listeners: Listener[] = [
    { name: 'device', port: config.DEVICE_PORT, protocols: PROTOCOLS },
    ...dedicated.filter(({ port }) => port !== 0).map(({ name, port }) => ({ name, port, protocols: PROTOCOLS.filter((p) => p.name === name) })),
  ];
  const servers = await startDeviceServers(listeners, config.DEVICE_HOST, { total: config.DEVICE_MAX_CONNECTIONS, perAddress: config.DEVICE_MAX_CONNECTIONS_PER_ADDRESS, proxyProtocol: config.DEVICE_PROXY_PROTOCOL }, deps);
  const osmandServer = await startHttpReportServer(osmand, config.OSMAND_PORT, config.DEVICE_HOST, { reportsPerMinute: config.OSMAND_REPORTS_PER_MINUTE_PER_ADDRESS, proxyProtocol: config.DEVICE_PROXY_PROTOCOL }, deps);
  // A device removed, or given another identifier or report key, from any process: its connection
  // here is closed and a phone's next report is looked up again.
  const unlistenDisconnect = await db.listen(DEVICE_DISCONNECT_CHANNEL, (deviceId) => {
    connections.get(deviceId)?.close();
    osmandServer.forget(deviceId);
  });
  const stopOfflineSweep = ctx.jobs.every('offline-sweep', OFFLINE_SWEEP_MS, () => connections.announceOffline(config.DEVICE_OFFLINE_GRACE_SECONDS));

  return {
    ports: { ...servers.ports, osmand: osmandServer.port },
    deps,
    async close(deadline) {
      const closed = servers.stopAccepting();
      stopOfflineSweep();
      const osmandClosed = osmandServer.close(deadline);
      deps.batcher.hurry();
      void servers.drain();
      // Devices close their side on our FIN; the deadline closes the rest.
      const cut = setTimeout(() => servers.closeSockets(), Math.max(0, deadline - Date.now()));
      await closed;
      clearTimeout(cut);
      await osmandClosed;
      await deps.batcher.flush(); // positions of connections cut at the deadline: stored, never ACKed
      await dispatcher.stop();
      await unlistenDisconnect();
      await connections.settled(); // their offline records, before the database closes
    },
  };
}
