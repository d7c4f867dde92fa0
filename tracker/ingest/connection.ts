// One device connection: recognise the protocol, split frames, decode, identify the device, store
// positions and only then ACK. Frames of a connection are handled strictly in order. Nothing a
// socket sends can throw out of here: a bad frame is counted and dropped, a hostile peer closed.
// A second connection for a device already connected here is settled by DEVICE_TAKEOVER.
import type { Socket } from 'node:net';
import type { Counter } from 'prom-client';
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/logger.js';
import type { CommandDispatcher } from '../commands/dispatcher.js';
import { findDeviceByImei } from '../devices/repository.js';
import type { DeviceReport } from '../events/engine.js';
import type { DecodeResult, Framer, Protocol, ProtocolSession } from '../protocols/types.js';
import type { PlausibleLimits } from '../positions/plausible.js';
import { asStored } from '../positions/stored.js';
import type { Db } from '../storage/db.js';
import type { PositionBatcher } from './batcher.js';
import { screen } from './refusals.js';
import type { DeviceSessions, LiveConnection } from './sessions.js';
import type { IngestStats } from './stats.js';

export interface ConnectionDeps {
  db: Db;
  logger: Logger;
  batcher: PositionBatcher;
  sessions: DeviceSessions;
  dispatcher: CommandDispatcher;
  stats: IngestStats;
  /** Commands moved to each status (the tracker's fleet_commands_total). */
  commandOutcomes: Counter<'status'>;
  crcStrict: boolean;
  /** What the plausibility check accepts (POSITION_EARLIEST_TIME, POSITION_MAX_FUTURE). */
  plausible: PlausibleLimits;
  takeover: Config['DEVICE_TAKEOVER'];
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

export function handleConnection(socket: Socket, candidates: Protocol[], deps: ConnectionDeps): DeviceConnection {
  deps.stats.connections++;
  const session: ProtocolSession = { state: {} };
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
    sendLocate(seq) {
      const bytes = protocol?.encodeLocate(session, seq) ?? null;
      if (!bytes) return false;
      socket.write(bytes);
      return true;
    },
    close: () => socket.destroy(),
  };

  socket.setNoDelay(true);
  // A fixed deadline, not an idle timer: a peer trickling bytes must not keep an unidentified socket.
  const loginDeadline = setTimeout(() => {
    deps.stats.countRefusedConnection('login_timeout');
    socket.destroy();
  }, deps.loginTimeoutMs);
  socket.on('timeout', () => socket.destroy());
  socket.on('error', () => socket.destroy());
  socket.on('close', () => {
    closed = true;
    clearTimeout(loginDeadline);
    deps.stats.connections--;
    if (deviceId) void deps.sessions.detach(deviceId, live);
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
        if (deviceId && !takingOver) await Promise.all(queue.splice(0, SHARED_BATCH).map(handleFrame));
        else await handleFrame(queue.shift()!);
        if (queue.length <= MAX_QUEUED / 2 && socket.isPaused()) socket.resume();
      }
    } catch (err) {
      // Storage failed: no ACK was sent, so the device re-sends on a new connection.
      deps.logger.warn({ err, deviceId }, 'device connection closed after a storage failure');
      socket.destroy();
    } finally {
      working = false;
      for (const resolve of whenIdle.splice(0)) resolve();
    }
  }

  async function handleFrame(frame: Buffer): Promise<void> {
    let result: DecodeResult;
    try {
      result = protocol!.decode(frame, session);
      result.positions = result.positions.map(asStored);
      deps.stats.framesDecoded++;
    } catch (err) {
      deps.stats.countDecodeError(protocol!.name);
      deps.logger.debug({ err, protocol: protocol!.name }, 'frame could not be decoded');
      return;
    }
    if (result.identity !== undefined && result.identity !== session.identity) {
      if (!(await identify(result.identity))) return;
    }
    if (!deviceId) return; // nothing is accepted before the device has identified itself
    if (result.badChecksum) {
      deps.stats.countBadChecksum(deviceId);
      if (deps.crcStrict) return;
    }
    deps.stats.positionsReceived += result.positions.length;
    // Implausible records are refused alone: the rest is stored and the frame ACKed, or one corrupt
    // record in a device's buffer would block everything after it for good.
    const { positions, attributes } = screen(deps, protocol!.name, deviceId, result.positions, result.attributes);
    const reports = alarmReport(deviceId, attributes);
    if (positions.length > 0 || reports.length > 0) {
      const id = deviceId;
      await deps.batcher.add(positions.map((position) => ({ deviceId: id, position })), reports);
      if (takingOver && positions.length > 0) await takeOver();
    }
    // Only the connection that speaks for the device answers its commands.
    if (result.commandReply !== undefined && deps.sessions.get(deviceId) === live) {
      const p = positions[0];
      const position = p ? { lat: p.lat, lng: p.lng, speed: p.speed, heading: p.heading, timestamp: p.deviceTime.toISOString() } : null;
      await deps.dispatcher.replied(deviceId, result.commandReply, position);
    }
    if (result.reply && !closed) socket.write(result.reply);
  }

  async function identify(identity: string): Promise<boolean> {
    const device = /^[0-9]{5,20}$/.test(identity) ? await findDeviceByImei(deps.db, identity) : null;
    if (!device) {
      deps.stats.unknownIdentities++;
      if (deps.stats.shouldLogUnknown(identity)) deps.logger.warn({ identity: identity.slice(0, 20), protocol: protocol!.name }, 'unknown device refused');
      const refusal = protocol!.rejectIdentity(session);
      if (refusal) socket.end(refusal);
      else socket.destroy();
      closed = true;
      return false;
    }
    if (deviceId && deviceId !== device.id) {
      socket.destroy(); // one connection speaks for one device
      return false;
    }
    const current = deps.sessions.get(device.id);
    const second = current !== undefined && current !== live;
    if (second && deps.takeover === 'older') {
      deps.stats.countTakeover('older');
      deps.logger.warn({ deviceId: device.id, protocol: protocol!.name, remoteAddress: socket.remoteAddress }, 'second connection of a connected device refused');
      socket.destroy();
      closed = true;
      return false;
    }
    session.identity = identity;
    deviceId = device.id;
    clearTimeout(loginDeadline);
    socket.setTimeout(deps.idleTimeoutMs);
    // A login alone proves nothing but the identifier: the connection speaking for the device keeps
    // its commands until this one has sent a position.
    if (second) takingOver = true;
    else await deps.sessions.attach(device.id, protocol!.name, live);
    return true;
  }

  async function takeOver(): Promise<void> {
    takingOver = false;
    if (await deps.sessions.attach(deviceId!, protocol!.name, live)) {
      deps.stats.countTakeover('newer');
      deps.logger.warn({ deviceId, protocol: protocol!.name, remoteAddress: socket.remoteAddress }, 'device connection taken over by a newer one');
    }
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

/** Of what a message without a fix says, only an alarm needs storing (its event, before the ACK). */
export function alarmReport(deviceId: string, attributes: Record<string, unknown> | undefined): DeviceReport[] {
  return attributes?.alarm !== undefined ? [{ deviceId, receivedAt: new Date(), attributes }] : [];
}
