// Connections that press on the device ports: one that trickles a byte at a time and never
// identifies, many at once from one address, and a GT06 unit that sends positions as fast as
// its socket takes them while counting the ACKs it gets back.
import { connect, type Socket } from 'node:net';
import { gt06Login, gt06Position } from '../../tracker/simulator/frames/gt06.js';
import { DeviceClient } from './device-client.js';

/** Sends one byte that names no protocol every `everyMs` until the tracker closes the socket. */
export async function trickle(port: number, everyMs: number): Promise<DeviceClient> {
  const c = await DeviceClient.open(port);
  const timer = setInterval(() => (c.closed ? clearInterval(timer) : c.send(Buffer.from([0x20]))), everyMs);
  c.socket.once('close', () => clearInterval(timer));
  return c;
}

/** Opens n connections from one local address and says which the tracker closed within `settleMs`. */
export async function openMany(port: number, n: number, from = '127.0.0.1', settleMs = 300): Promise<{ open: Socket[]; closed: Socket[] }> {
  const all: Socket[] = [];
  const shut = new Set<Socket>();
  for (let i = 0; i < n; i++) {
    const s = await new Promise<Socket>((resolve, reject) => {
      const c = connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(c));
      c.once('error', reject);
    });
    s.on('error', () => undefined);
    s.once('close', () => shut.add(s));
    all.push(s);
  }
  await new Promise((r) => setTimeout(r, settleMs));
  return { open: all.filter((s) => !shut.has(s)), closed: all.filter((s) => shut.has(s)) };
}

/** GT06 positions one second apart from this instant: the k-th frame's fix is at FLOOD_START + k s. */
export const FLOOD_START = Date.UTC(2026, 10, 22, 6, 0, 0);

export interface Flood {
  client: DeviceClient;
  /** Position frames ACKed so far: always the first ones sent, ACKs come in order. */
  acked(): number;
  sent(): number;
}

/** Logs in (waits for the login ACK), then writes position frames whenever the socket drains. */
export async function flood(port: number, imei: string): Promise<Flood> {
  const client = await DeviceClient.open(port);
  client.send(gt06Login(imei, 1));
  await client.read(10, 10_000); // a tracker just started (or the machine busy) may take a moment
  let sent = 0;
  let ackBytes = 0;
  client.socket.on('data', (d: Buffer) => (ackBytes += d.length));
  const burst = () => {
    while (!client.closed) {
      const frames = Array.from({ length: 50 }, () => {
        sent++;
        return gt06Position({ time: new Date(FLOOD_START + sent * 1000), lat: 52.5, lng: 13.4, speed: 30, heading: 90 }, {}, (sent % 0xffff) + 1);
      });
      if (!client.socket.write(Buffer.concat(frames))) return void client.socket.once('drain', burst);
    }
  };
  client.socket.on('error', () => undefined);
  burst();
  return { client, acked: () => Math.floor(ackBytes / 10), sent: () => sent };
}
