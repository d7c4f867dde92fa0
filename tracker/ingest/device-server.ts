// The device-facing TCP listeners: DEVICE_PORT recognises every binary/text protocol from the
// first bytes; Traccar's dedicated ports (GT06 5023, Teltonika 5027, H02 5013) speak one each, so
// a fleet moves over without touching its devices. Connections past DEVICE_MAX_CONNECTIONS, in
// total or from one address, are closed as they arrive. Behind a TCP balancer
// (DEVICE_PROXY_PROTOCOL) the address is the one its PROXY protocol header gives.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Protocol } from '../protocols/types.js';
import { ConnectionCaps } from './address-limits.js';
import { handleConnection, type ConnectionDeps, type DeviceConnection } from './connection.js';
import { peerAddress } from './proxied-connection.js';

export interface Listener {
  /** The port, or one protocol's name for a dedicated port. */
  name: string;
  port: number;
  protocols: Protocol[];
}

export interface DeviceServers {
  ports: Record<string, number>;
  /** Stops accepting connections; resolves once every device connection has closed. */
  stopAccepting(): Promise<void>;
  /** Lets every connection finish what it received (stored and ACKed), then ends it. */
  drain(): Promise<void>;
  /** Closes every device socket at once. */
  closeSockets(): void;
}

export interface ConnectionLimits {
  total: number;
  perAddress: number;
  /** Every connection starts with a PROXY protocol header (DEVICE_PROXY_PROTOCOL). */
  proxyProtocol: boolean;
}

export async function startDeviceServers(listeners: Listener[], host: string, limits: ConnectionLimits, deps: ConnectionDeps): Promise<DeviceServers> {
  const connections = new Map<Socket, DeviceConnection>();
  const caps = new ConnectionCaps(limits.total, limits.perAddress);
  const servers: Server[] = [];
  const ports: Record<string, number> = {};
  for (const l of listeners) {
    const server = createServer({ noDelay: true }, async (socket) => {
      const address = await peerAddress(socket, l.name, limits.proxyProtocol, deps);
      if (address === null || socket.destroyed) return;
      const refusal = caps.admit(address);
      if (refusal) {
        deps.stats.countRefusedConnection(refusal);
        socket.destroy();
        return;
      }
      connections.set(socket, handleConnection(socket, address, l.protocols, deps));
      socket.once('close', () => {
        connections.delete(socket);
        caps.release(address);
      });
      socket.resume(); // bytes that came with the header are read now
    });
    server.on('error', (err) => deps.logger.error({ err, listener: l.name }, 'device listener error'));
    ports[l.name] = await new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(l.port, host, () => resolve((server.address() as AddressInfo).port));
    });
    servers.push(server);
  }
  return {
    ports,
    stopAccepting: () => Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r())))).then(() => undefined),
    drain: () => Promise.all([...connections.values()].map((c) => c.drain())).then(() => undefined),
    closeSockets: () => {
      for (const s of connections.keys()) s.destroy();
    },
  };
}
