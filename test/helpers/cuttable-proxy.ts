// A TCP relay of the test's own in front of a real server (the machine's PostgreSQL), which a test
// can cut, as an outage looks to a client (open connections reset, new ones refused), and restore.
import { createServer, Socket, type Server } from 'node:net';
import { freePort } from './ports.js';

export interface CuttableProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

export async function startCuttableProxy(targetPort: number, targetHost = '127.0.0.1'): Promise<CuttableProxy> {
  const port = await freePort();
  const open = new Set<Socket>();
  let server: Server | null = null;

  function listen(): Promise<void> {
    if (server) return Promise.resolve();
    const s = createServer((client) => {
      const upstream = new Socket();
      open.add(client).add(upstream);
      const end = () => {
        client.destroy();
        upstream.destroy();
        open.delete(client);
        open.delete(upstream);
      };
      client.on('error', end).on('close', end);
      upstream.on('error', end).on('close', end);
      upstream.connect(targetPort, targetHost, () => {
        client.pipe(upstream);
        upstream.pipe(client);
      });
    });
    server = s;
    return new Promise((resolve, reject) => s.once('error', reject).listen(port, '127.0.0.1', () => resolve()));
  }

  async function cut(): Promise<void> {
    const s = server;
    server = null;
    for (const socket of open) socket.resetAndDestroy();
    open.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  await listen();
  return { port, cut, restore: listen, close: cut };
}
