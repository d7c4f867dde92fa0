// The device-facing TCP listeners: DEVICE_PORT recognises every binary/text protocol from the
// first bytes; Traccar's dedicated ports (GT06 5023, Teltonika 5027, H02 5013) speak one each, so
// a fleet moves over without touching its devices.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Protocol } from '../protocols/types.js';
import { handleConnection, type ConnectionDeps } from './connection.js';

export interface Listener {
  /** The port, or one protocol's name for a dedicated port. */
  name: string;
  port: number;
  protocols: Protocol[];
}

export interface DeviceServers {
  ports: Record<string, number>;
  /** Stops accepting connections. */
  stopAccepting(): Promise<void>;
  /** Closes every device socket. */
  closeSockets(): void;
}

export async function startDeviceServers(listeners: Listener[], host: string, deps: ConnectionDeps): Promise<DeviceServers> {
  const sockets = new Set<Socket>();
  const servers: Server[] = [];
  const ports: Record<string, number> = {};
  for (const l of listeners) {
    const server = createServer({ noDelay: true }, (socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      handleConnection(socket, l.protocols, deps);
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
    closeSockets: () => {
      for (const s of sockets) s.destroy();
    },
  };
}
