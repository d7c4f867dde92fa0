// Every device port gives a new connection a fixed time to prove itself (a TCP unit identifies, a
// phone sends a whole request), counted from the moment it opened: a fixed deadline, not an idle
// timer, so a peer trickling bytes cannot keep an unproven socket open.
import type { Socket } from 'node:net';
import type { IngestStats } from './stats.js';

/** Closes `socket` after `ms` unless the returned timer is cleared first; cleared when it closes. */
export function loginDeadline(socket: Socket, stats: IngestStats, ms: number): NodeJS.Timeout {
  const deadline = setTimeout(() => {
    stats.countRefusedConnection('login_timeout');
    socket.destroy();
  }, ms);
  socket.once('close', () => clearTimeout(deadline));
  return deadline;
}
