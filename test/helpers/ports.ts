// Ports for services under test: a free TCP port on loopback, and settings that keep a tracker off
// every fixed device port (the shared device port, the OsmAnd port and each protocol's own port,
// all 0: an ephemeral port). Tests run in parallel, so none may take a protocol's well-known port.
import { createServer } from 'node:net';
import { PROTOCOL_PORTS, portSetting } from '../../shared/config.js';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

export const NO_DEVICE_PORTS: Record<string, string> = {
  DEVICE_PORT: '0',
  OSMAND_PORT: '0',
  ...Object.fromEntries(Object.keys(PROTOCOL_PORTS).map((name) => [portSetting(name), '0'])),
};
