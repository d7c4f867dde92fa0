// DEVICE_PROXY_PROTOCOL: every connection on a device port starts with the balancer's PROXY
// protocol header. It is read off the socket before anything else sees a byte; what came with it
// is put back for the device protocol (or the HTTP parser). A connection without a valid header in
// time is closed.
import type { Socket } from 'node:net';
import type { Logger } from '../../shared/logger.js';
import { parseProxyHeader } from './proxy-protocol.js';
import type { IngestStats } from './stats.js';

/**
 * The balancer sends the header as it opens the connection: a few seconds is plenty, and a peer
 * trickling bytes is let go well before the login deadline.
 */
export const PROXY_HEADER_TIMEOUT_MS = 3000;

export type HeaderOutcome = { address: string } | { refused: string };

const addresses = new WeakMap<Socket, string>();

/** The device's address: the one the balancer gave for this socket, else the socket's own peer. */
export function deviceAddress(socket: Socket): string {
  return addresses.get(socket) ?? socket.remoteAddress ?? '';
}

/**
 * Reads the header. On success the socket is left paused with the bytes after the header unread
 * (resume it once its reader listens), and deviceAddress() answers the device's address. On
 * failure the socket is destroyed and the reason given (never the bytes: they may carry anything).
 */
export function readProxyHeader(socket: Socket, timeoutMs = PROXY_HEADER_TIMEOUT_MS): Promise<HeaderOutcome> {
  return new Promise((resolve) => {
    let head: Buffer = Buffer.alloc(0);
    const finish = (outcome: HeaderOutcome) => {
      clearTimeout(timer);
      socket.pause();
      socket.off('data', onData);
      socket.off('close', onClose);
      if ('refused' in outcome) socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ refused: 'no complete PROXY protocol header in time' }), timeoutMs);
    const onClose = () => finish({ refused: 'closed before its PROXY protocol header' });
    const onData = (chunk: Buffer) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
      const parsed = parseProxyHeader(head);
      if (parsed.kind === 'more') return;
      if (parsed.kind === 'invalid') return finish({ refused: parsed.reason });
      const address = parsed.address ?? socket.remoteAddress ?? '';
      addresses.set(socket, address);
      finish({ address });
      if (head.length > parsed.length) socket.unshift(head.subarray(parsed.length));
    };
    socket.on('error', () => socket.destroy());
    socket.on('close', onClose);
    socket.on('data', onData);
  });
}

/**
 * The device's address: the socket's peer, or (`proxyProtocol`) what the balancer's header says;
 * null when the connection was refused for its header (counted, and logged at most once a minute
 * per peer). Behind a header the socket is left paused: resume it once its reader listens.
 */
export async function peerAddress(socket: Socket, listener: string, proxyProtocol: boolean, deps: { stats: IngestStats; logger: Logger }): Promise<string | null> {
  if (!proxyProtocol) return socket.remoteAddress ?? '';
  const outcome = await readProxyHeader(socket);
  if ('address' in outcome) return outcome.address;
  deps.stats.countRefusedConnection('proxy_header');
  const peer = socket.remoteAddress ?? '';
  if (deps.stats.shouldLogProxyRefusal(peer)) deps.logger.warn({ listener, peer, reason: outcome.refused }, 'device connection without a valid PROXY protocol header refused');
  return null;
}
