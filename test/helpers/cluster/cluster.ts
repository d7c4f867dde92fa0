// The scaled deployment as real processes on this machine: trackers on one PostgreSQL database,
// gateways on one Redis, nginx balancing the API over the gateways and the device port over the
// trackers, and a webhook receiver standing in for the account owner's endpoint. Each node is its
// own process with its own ports.
import { startService, type Service } from '../processes.js';
import { createStack, type Stack } from '../stack.js';
import { WebhookReceiver } from '../webhook-receiver.js';
import { pickBalancerPorts, startBalancer, type Balancer, type BalancerPorts } from './balancer.js';

export type TrackerNode = Service & { devicePort: number; metricsPort: number };
export type GatewayNode = Service & { metricsPort: number };

export interface ClusterOptions {
  trackers?: number;
  gateways?: number;
  /** nginx sends a PROXY protocol header on every device connection; the trackers expect it. */
  proxyProtocol?: boolean;
  /** Settings added to every tracker's, given the stack (a replica's DATABASE_READ_URL names its database). */
  trackerEnv?: (stack: Stack) => Record<string, string>;
  /** Settings added to every gateway's. */
  gatewayEnv?: Record<string, string>;
}

export interface Cluster {
  stack: Stack;
  trackers: TrackerNode[];
  gateways: GatewayNode[];
  balancer: Balancer;
  receiver: WebhookReceiver;
  /** The public API through nginx. */
  apiUrl: string;
  /** nginx's device port (least_conn over the trackers) and the ports pinned to each tracker. */
  ports: BalancerPorts;
  close(): Promise<void>;
}

/** Several nodes start at once on a busy CI machine: more time than one service's start needs. */
const START = { timeoutMs: 60_000 };

/** Each gateway's TRACKER_URL: every tracker, the gateway spreading requests with passive health. */
const trackerUrl = (trackers: TrackerNode[]) => trackers.map((t) => `http://127.0.0.1:${t.port}`).join(',');

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const stack = await createStack();
  const receiver = await WebhookReceiver.start();
  const started: { stop(): Promise<void> }[] = [];
  try {
    const trackerEnv = {
      // Every device connection comes from nginx's address (or, with PROXY protocol, from this host's).
      DEVICE_MAX_CONNECTIONS_PER_ADDRESS: '5000',
      DEVICE_PROXY_PROTOCOL: String(opts.proxyProtocol ?? false),
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...opts.trackerEnv?.(stack),
    };
    const trackers: TrackerNode[] = [];
    for (let i = 0; i < (opts.trackers ?? 2); i++) {
      const t = await stack.startTracker(trackerEnv, START);
      started.push(t);
      trackers.push(Object.assign(t, { devicePort: t.devicePorts.device! }));
    }
    const ports = await pickBalancerPorts(trackers.length);
    const gateways: GatewayNode[] = [];
    for (let i = 0; i < (opts.gateways ?? 2); i++) {
      const g = await startService('gateway/main.ts', {
        ...stack.gatewayEnv(0),
        TRACKER_URL: trackerUrl(trackers),
        RATE_LIMIT_READ_PER_MINUTE: '100000',
        RATE_LIMIT_WRITE_PER_MINUTE: '100000',
        RATE_LIMIT_COMMANDS_PER_MINUTE: '100000',
        ...opts.gatewayEnv,
      }, START);
      started.push(g);
      const line = await g.waitForLog((l) => typeof l.metricsPort === 'number');
      gateways.push(Object.assign(g, { metricsPort: line.metricsPort as number }));
    }
    const balancer = await startBalancer(ports, {
      gateways: gateways.map((g) => g.port),
      trackerDevices: trackers.map((t) => t.devicePort),
      proxyProtocol: opts.proxyProtocol ?? false,
    });
    return {
      stack,
      trackers,
      gateways,
      balancer,
      receiver,
      apiUrl: `http://127.0.0.1:${ports.api}`,
      ports,
      async close() {
        await balancer.stop();
        await Promise.all([...trackers, ...gateways].map((s) => s.stop()));
        await receiver.close();
        await stack.close();
      },
    };
  } catch (err) {
    await Promise.all(started.map((s) => s.stop()));
    await receiver.close();
    await stack.close();
    throw err;
  }
}
