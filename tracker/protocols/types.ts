// The contract between the device server (I/O, ACK timing, storage) and each protocol
// folder (framing, pure decoding, encoding). Decoders never touch sockets or the database.
import type { Telemetry } from '../positions/telemetry.js';

/** A position normalised to the product's units. */
export interface DecodedPosition {
  /** Device (fix) time, UTC. */
  deviceTime: Date;
  /** Whether the GPS fix is valid; invalid fixes are stored but never move the current position. */
  valid: boolean;
  /** Decimal degrees, WGS84. */
  lat: number;
  lng: number;
  /** km/h. */
  speed: number;
  /** Degrees clockwise from north, 0..360. */
  heading: number;
  /** Metres above sea level (a column of its own, as satellites). */
  altitude?: number;
  satellites?: number;
  /** The telemetry vocabulary (positions/telemetry.ts); raw protocol values under `io`. */
  attributes: Telemetry;
}

/** Per-connection state a decoder may read and update (for example the IMEI after login). */
export interface ProtocolState {
  /** Device identifier (IMEI or the protocol's id) once known. */
  identity?: string;
  /** Free-form per-protocol state (serial numbers, codec, time zone…). */
  state: Record<string, unknown>;
}

export interface DecodeResult {
  /** Set when this frame identifies the device (login, handshake, or the id inside each text message). */
  identity?: string;
  positions: DecodedPosition[];
  /**
   * Bytes to send back once the frame has been handled. The server sends them only after the
   * positions are durable (ACK after commit) and, for a login, only after the identity is accepted.
   */
  reply?: Buffer;
  /** Reply text of a command the device answered (GT06 0x21, Codec 12 response, H02 reply…). */
  commandReply?: string;
  /** The `commandSeq` the reply echoes, where the protocol has one (GT06's server flag): it finds the command. */
  commandSeq?: number;
  /** The reply says the unit refused or could not run the command (JT/T 808 result 1..3): it fails instead of being delivered. */
  commandFailed?: boolean;
  /** The frame's checksum did not match (the server counts it; CRC_STRICT refuses the frame). */
  badChecksum?: boolean;
  /** A frame that was valid but carries nothing for us (heartbeat is still a sign of life). */
  heartbeat?: boolean;
  /**
   * Device state reported in a message without a usable fix (GT06 status 0x13, H02 LINK, an alarm
   * whose GPS block is empty, an OsmAnd report without coordinates): alarm, batteryLevel,
   * ignition…, named as in DecodedPosition.attributes. An SOS here still raises its event.
   */
  attributes?: Telemetry;
}

/** Splits a TCP byte stream into frames. One instance per connection. */
export interface Framer {
  /** Feed bytes; returns complete frames. Garbage before a frame start is skipped. */
  push(chunk: Buffer): Buffer[];
  /** Bytes skipped as garbage so far (for counters). */
  readonly skipped: number;
}

/** Commands the product can ask a device for. */
export type CommandType = 'locate' | 'engineStop' | 'engineResume' | 'reboot' | 'setInterval' | 'custom';

/** What a command carries besides its type: setInterval's period, custom's raw payload. */
export interface CommandParams {
  /** setInterval: the reporting period asked for, seconds. */
  seconds?: number;
  /** custom: the protocol's own command text (for a text protocol, or a text command of a binary one). */
  text?: string;
  /** custom: raw bytes as hex, for a binary protocol. */
  hex?: string;
  /** The unit's identifier (IMEI or the protocol's id), filled in by the dispatcher for protocols whose commands name it (H02, Meitrack, Suntech, GPS103, TK103). */
  identity?: string;
}

/**
 * What a protocol can send, as data: an encoder per command it has (`commandSeq` travels in the
 * command where the protocol echoes it back). A command missing here is refused when it is asked
 * for, never queued. `session` is the state the decoder kept for the connection the command goes
 * to (JT/T 808 addresses it with the number and header version the terminal used); it is absent
 * when a command is only checked, before any connection.
 */
export type CommandEncoders = Partial<Record<CommandType, (commandSeq: number, params: CommandParams, session?: ProtocolState) => Buffer>>;

/** A protocol spoken over a TCP stream: detected, framed, decoded frame by frame. */
export interface Protocol {
  /** Lower-case, as in settings (GT06_PORT), metrics labels and the devices' `protocol` field. */
  name: string;
  transport: 'tcp';
  commands: CommandEncoders;
  /** The largest `commandSeq` the protocol's commands can carry (JT/T 808's serial is 16 bits); unset, 31 bits. */
  maxCommandSeq?: number;
  /** True when the first bytes of a connection belong to this protocol (device port autodetect). */
  detect(firstBytes: Buffer): boolean;
  createFramer(maxFrameBytes: number): Framer;
  decode(frame: Buffer, conn: ProtocolState): DecodeResult;
  /** Bytes that refuse an unknown identity the way the protocol expects, or null to just close. */
  rejectIdentity(conn: ProtocolState): Buffer | null;
}

/**
 * A protocol spoken over HTTP requests: each request is one report, decoded from its parameters or
 * JSON body. Commands travel in the answer to the device's next report.
 */
export interface HttpProtocol {
  name: 'osmand';
  transport: 'http';
  commands: CommandEncoders;
  /** The report, or why it is unusable (answered 400). `receivedAt` stands in for a missing time. */
  decode(report: Record<string, unknown>, receivedAt: Date): (DecodeResult & { identity: string }) | { error: string };
}
