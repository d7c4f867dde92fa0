// The steps every device report goes through, whatever its transport (TCP frames, HTTP requests):
// identify the device, settle a second speaker by DEVICE_TAKEOVER, screen for plausibility, store
// (committed before the device hears back), and record the answer to a command. Transports call
// them in their own order (OsmAnd screens before it looks anything up) and do their own I/O.
import type { Config } from '../../shared/config.js';
import type { Logger } from '../../shared/logger.js';
import type { CommandDispatcher } from '../commands/dispatcher.js';
import { findDeviceByImei, type Device } from '../devices/repository.js';
import type { DeviceReport } from '../events/engine.js';
import { carriesLatest } from '../positions/latest-telemetry.js';
import type { PlausibleLimits } from '../positions/plausible.js';
import { asStored } from '../positions/stored.js';
import type { Telemetry } from '../positions/telemetry.js';
import type { DecodeResult, DecodedPosition } from '../protocols/types.js';
import type { Db } from '../storage/db.js';
import type { PositionBatcher } from './batcher.js';
import type { DeviceConnections, LiveConnection } from './connections.js';
import { screen, type Screened } from './refusals.js';
import type { IngestStats } from './stats.js';

export interface PipelineDeps {
  db: Db;
  logger: Logger;
  batcher: PositionBatcher;
  connections: DeviceConnections;
  dispatcher: CommandDispatcher;
  stats: IngestStats;
  /** What the plausibility check accepts (POSITION_EARLIEST_TIME, POSITION_MAX_FUTURE). */
  plausible: PlausibleLimits;
  takeover: Config['DEVICE_TAKEOVER'];
}

/** Who is speaking: a transport's handle on the device (with its protocol) and where it comes from, for the log. */
export interface Speaker {
  conn: LiveConnection;
  remoteAddress: string | undefined;
}

/**
 * How a device that identified stands: it speaks for itself here; it is a second speaker beside a
 * live one and takes over with its first position (DEVICE_TAKEOVER=newer); or it is refused (older).
 */
export type Standing = 'speaks' | 'second' | 'refused';

/**
 * The registered device an identity names, or null (counted, and logged at most once a minute per
 * identity). `accepts` lets a transport refuse a known device too, such as a report without its key.
 */
export async function identify(deps: PipelineDeps, protocol: string, identity: string, accepts?: (device: Device) => Promise<boolean>): Promise<Device | null> {
  const found = /^[0-9]{5,20}$/.test(identity) ? await findDeviceByImei(deps.db, identity) : null;
  const device = found && (!accepts || (await accepts(found))) ? found : null;
  if (!device) {
    deps.stats.unknownIdentities++;
    if (deps.stats.shouldLogUnknown(identity)) {
      deps.logger.warn({ identity: identity.slice(0, 20), protocol, reason: found ? 'report key' : 'unknown identifier' }, 'unknown device refused');
    }
  }
  return device;
}

export function standing(deps: PipelineDeps, deviceId: string, speaker: Speaker): Standing {
  const current = deps.connections.get(deviceId);
  if (current === undefined || current === speaker.conn) return 'speaks';
  if (deps.takeover === 'newer') return 'second';
  deps.stats.countTakeover('older');
  deps.logger.warn({ deviceId, protocol: speaker.conn.protocol, remoteAddress: speaker.remoteAddress }, 'second connection of a connected device refused');
  return 'refused';
}

/** The speaker now speaks for the device (and gets its commands); one it replaces is closed. */
export async function speakFor(deps: PipelineDeps, deviceId: string, speaker: Speaker): Promise<void> {
  if (!(await deps.connections.attach(deviceId, speaker.conn.protocol, speaker.conn))) return;
  deps.stats.countTakeover('newer');
  deps.logger.warn({ deviceId, protocol: speaker.conn.protocol, remoteAddress: speaker.remoteAddress }, 'device connection taken over by a newer one');
}

/** Counts the decoded positions and splits off what the plausibility check refuses. `device`: id or identity. */
export function screenReport(deps: PipelineDeps, protocol: string, device: string, positions: DecodedPosition[], attributes?: Telemetry): Screened {
  deps.stats.positionsReceived += positions.length;
  return screen(deps, protocol, device, positions.map(asStored), attributes);
}

/** Stores what passed the screen; resolves once committed, when the device may hear back (at once when nothing is to be stored). */
export function store(deps: PipelineDeps, deviceId: string, screened: Screened): Promise<void> {
  return deps.batcher.add(screened.positions.map((position) => ({ deviceId, position })), statusReport(deviceId, screened.attributes));
}

/**
 * A command reply counts only from the speaker that speaks for the device (it got the command).
 * Not async: the usual report answers no command and costs no promise.
 */
export function answered(deps: PipelineDeps, deviceId: string, speaker: Speaker, decoded: CommandAnswer, positions: DecodedPosition[]): Promise<void> | undefined {
  if (decoded.commandReply === undefined || deps.connections.get(deviceId) !== speaker.conn) return undefined;
  const p = positions[0];
  const position = p ? { lat: p.lat, lng: p.lng, speed: p.speed, heading: p.heading, timestamp: p.deviceTime.toISOString() } : null;
  return deps.dispatcher.replied(deviceId, decoded.commandReply, position, decoded.commandSeq, decoded.commandFailed);
}

/** What a decoded message says about a command it answers. */
export type CommandAnswer = Pick<DecodeResult, 'commandReply' | 'commandSeq' | 'commandFailed'>;

/**
 * What a message without a fix says is stored before the ACK when it is kept as the device's latest
 * telemetry (an alarm is, and also raises its event); a report of nothing kept is ACKed at once.
 */
function statusReport(deviceId: string, attributes: Telemetry | undefined): DeviceReport[] {
  return attributes && carriesLatest(attributes) ? [{ deviceId, receivedAt: new Date(), attributes }] : [];
}
