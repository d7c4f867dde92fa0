// Ports for services under test: a free TCP port on loopback, and settings that keep a tracker off
// every fixed device port (the shared device port, the OsmAnd port and each protocol's own port,
// all 0: an ephemeral port). Tests run in parallel, so none may take a protocol's well-known port.
import { createServer } from 'node:net';
import { PROTOCOL_PORTS, portSetting } from '../../shared/config.js';

// A port handed out here is bound later by another process. Taken from the kernel's ephemeral range
// (32768 and up), it could meanwhile become the local end of some outgoing connection, and that
// process would fail with EADDRINUSE. So ports come from below that range, each Jest worker from a
// block of its own, in turn from a random start (a test file's modules, this counter with them,
// are loaded afresh), skipping any that something already listens on.
const BLOCK = 1000;
const BLOCKS = 12; // 20000–31999
const block = 20_000 + ((Number(process.env.JEST_WORKER_ID ?? 1) - 1) % BLOCKS) * BLOCK;
let next = Math.floor(Math.random() * BLOCK);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export async function freePort(): Promise<number> {
  for (let tries = 0; tries < BLOCK; tries++) {
    const port = block + (next++ % BLOCK);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${block}–${block + BLOCK - 1}`);
}

export const NO_DEVICE_PORTS: Record<string, string> = {
  DEVICE_PORT: '0',
  OSMAND_PORT: '0',
  ...Object.fromEntries(Object.keys(PROTOCOL_PORTS).map((name) => [portSetting(name), '0'])),
};
