// One TCP device connection: recognise the protocol, split frames, decode, then the report
// pipeline (identify, screen, store) and only then ACK. Frames of a connection are handled strictly
// in order. Nothing a socket sends can throw out of here: a bad frame is counted and dropped, a
// hostile peer closed. A second connection for a device already connected here is settled by
// DEVICE_TAKEOVER.
import type { Socket } from 'node:net';
import type { DecodeResult, Framer, Protocol, ProtocolState } from '../protocols/types.js';
import { RemovedDevicesError } from './batcher.js';
import type { LiveConnection } from './connections.js';
import { loginDeadline } from './login-deadline.js';
import { answered, identify, screenReport, speakFor, standing, store, type PipelineDeps, type Speaker } from './pipeline.js';

export interface ConnectionDeps extends PipelineDeps {
  crcStrict: boolean;
  /** From the moment a connection opens: it must have identified by then, whatever it sends. */
  loginTimeoutMs: number;
  idleTimeoutMs: number;
  maxFrameBytes: number;
}

/** Bytes to wait for before giving up on recognising a protocol. */
const DETECT_BYTES = 64;
/** Frames queued before the socket is paused (backpressure on a flooding peer). */
const MAX_QUEUED = 256;
/** Frames of an identified connection handled together, their positions stored in one batch. */
const SHARED_BATCH = 64;
/**
 * How long an ended connection waits for the device's own FIN before it is closed: the ACKs are on
 * their way by then, and a device whose link died silently must not hold a stop until its deadline.
 */
const END_LINGER_MS = 1000;

export interface DeviceConnection {
  /**
   * Graceful stop: every frame received so far is handled (positions stored, then ACKed), then the
   * connection is ended; what the device sends after that is ignored (it was never ACKed, so the
   * device sends it again to the next tracker).
   */
  drain(): Promise<void>;
}

/** `address`: the device's (behind a balancer, from its PROXY protocol header), for limits and logs. */
export function handleConnection(socket: Socket, address: string, candidates: Protocol[], deps: ConnectionDeps): DeviceConnection {
  deps.stats.connections++;
  const protocolState: ProtocolState = { state: {} };
  let protocol: Protocol | null = candidates.length === 1 ? candidates[0]! : null;
  let framer: Framer | null = protocol ? protocol.createFramer(deps.maxFrameBytes) : null;
  let head = Buffer.alloc(0);
  let deviceId: string | null = null;
  /** Identified while another connection speaks for the device: it takes over with its first position. */
  let takingOver = false;
  let closed = false;
  let ended = false;
  const queue: Buffer[] = [];
  let working = false;
  const whenIdle: (() => void)[] = [];

  const live: LiveConnection = {
    get protocol() {
      return protocol?.name ?? 'unknown';
    },
    session: protocolState,
    write: (bytes) => socket.write(bytes),
    close: () => socket.destroy(),
  };
  const speaker: Speaker = { conn: live, remoteAddress: address };

  socket.setNoDelay(true);
  const identifyBy = loginDeadline(socket, deps.stats, deps.loginTimeoutMs);
  socket.on('timeout', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    closed = true;
    deps.stats.connections--;
    if (deviceId) void deps.connections.detach(deviceId, live);
  });

  socket.on('data', (chunk: Buffer) => {
    if (ended) return;
    if (!framer) {
      head = Buffer.concat([head, chunk]);
      protocol = candidates.find((p) => p.detect(head)) ?? null;
      if (!protocol) {
        if (head.length >= DETECT_BYTES) socket.destroy();
        return;
      }
      framer = protocol.createFramer(deps.maxFrameBytes);
      chunk = head;
      head = Buffer.alloc(0);
    }
    const skippedBefore = framer.skipped;
    queue.push(...framer.push(chunk));
    deps.stats.garbageBytes += framer.skipped - skippedBefore;
    if (queue.length > MAX_QUEUED) socket.pause();
    void work();
  });

  async function work(): Promise<void> {
    if (working) return;
    working = true;
    try {
      while (queue.length > 0 && !closed) {
        // Once the device speaks for itself here, frames waiting together share one batch: a unit
        // uploading its backlog (or one in flight at a stop) waits for one commit, not one each.
        // Their ACKs still go out in order: a batch's waiters are released in the order they came.
        if (deviceId && !takingOver && queue.length > 1) await Promise.all(queue.splice(0, SHARED_BATCH).map(handleFrame));
        else await handleFrame(queue.shift()!);
        if (queue.length <= MAX_QUEUED / 2 && socket.isPaused()) socket.resume();
      }
    } catch (err) {
      // Storage failed: no ACK was sent, so the device re-sends on a new connection.
      if (err instanceof RemovedDevicesError) deps.logger.info({ deviceId }, 'device removed: its connection is closed');
      else deps.logger.warn({ err, deviceId }, 'device connection closed after a storage failure');
      socket.destroy();
    } finally {
      working = false;
      for (const resolve of whenIdle.splice(0)) resolve();
    }
  }

  async function handleFrame(frame: Buffer): Promise<void> {
    let result: DecodeResult;
    try {
      result = protocol!.decode(frame, protocolState);
      deps.stats.framesDecoded++;
    } catch (err) {
      deps.stats.countDecodeError(protocol!.name);
      deps.logger.debug({ err, protocol: protocol!.name }, 'frame could not be decoded');
      return;
    }
    if (result.identity !== undefined && result.identity !== protocolState.identity) {
      if (!(await admit(result.identity))) return;
    }
    if (!deviceId) return; // nothing is accepted before the device has identified itself
    if (result.badChecksum) {
      deps.stats.countBadChecksum(deviceId);
      if (deps.crcStrict) return;
    }
    // Implausible records are refused alone: the rest is stored and the frame ACKed, or one corrupt
    // record in a device's buffer would block everything after it for good.
    const screened = screenReport(deps, protocol!.name, deviceId, result.positions, result.attributes);
    await store(deps, deviceId, screened);
    if (takingOver && screened.positions.length > 0) {
      takingOver = false;
      await speakFor(deps, deviceId, speaker);
    }
    const replied = answered(deps, deviceId, speaker, result, screened.positions);
    if (replied) await replied;
    if (result.reply && !closed) socket.write(result.reply);
  }

  async function admit(identity: string): Promise<boolean> {
    const device = await identify(deps, protocol!.name, identity);
    if (!device) {
      const refusal = protocol!.rejectIdentity(protocolState);
      if (refusal) socket.end(refusal);
      else socket.destroy();
      closed = true;
      return false;
    }
    if (deviceId && deviceId !== device.id) {
      socket.destroy(); // one connection speaks for one device
      return false;
    }
    const stands = standing(deps, device.id, speaker);
    if (stands === 'refused') {
      socket.destroy();
      closed = true;
      return false;
    }
    protocolState.identity = identity;
    deviceId = device.id;
    clearTimeout(identifyBy);
    socket.setTimeout(deps.idleTimeoutMs);
    // A login alone proves nothing but the identifier: the connection speaking for the device keeps
    // its commands until this one has sent a position.
    if (stands === 'second') takingOver = true;
    else await speakFor(deps, device.id, speaker);
    return true;
  }

  return {
    async drain() {
      // Nothing read from now on is handled: a device sending without pause must not hold the stop.
      ended = true;
      if (working) await new Promise<void>((resolve) => whenIdle.push(resolve));
      if (closed) return;
      socket.end();
      socket.resume(); // read on (and ignore) until the device's FIN
      setTimeout(() => socket.destroy(), END_LINGER_MS).unref();
    },
  };
}
