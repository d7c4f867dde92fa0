// Server-to-terminal commands of JT/T 808. Every downlink is addressed to the terminal by the phone
// number of its header, in the header version the terminal speaks: both are taken from the
// connection (what the terminal sent last), or, when a command is only checked, built from the
// device id. The command's number travels as the message serial, which the terminal echoes in its
// general answer 0x0001 (or its position answer 0x0201).
import type { CommandParams, ProtocolState } from '../types.js';
import { buildMessage } from './message.js';

/** Downlink message ids. */
export const DOWNLINK = {
  /** Set terminal parameters: count, then per parameter id (4), length (1), value. */
  SET_PARAMETERS: 0x8103,
  /** Terminal control: a command word, then its parameters. */
  TERMINAL_CONTROL: 0x8105,
  /** Position query: no body; answered with 0x0201. */
  POSITION_QUERY: 0x8201,
  /** Text message: a flag byte, then the text (units take their SMS commands this way too). */
  TEXT_MESSAGE: 0x8300,
} as const;

/** 0x8300 flag: bit 0, urgent (what units that run the text as a command expect). */
const TEXT_URGENT = 0x01;

/** 0x8105 command words: the standard's 4 (reset), and the fuel-cut relay words common units use (Concox/Jimi and most JT/T 808 trackers). */
const CONTROL = { reset: 0x04, relayOn: 0xf0, relayOff: 0xf1 } as const;
/** 0x8103 parameter: the default time report interval, seconds (DWORD). */
const REPORT_INTERVAL = 0x0029;

/** What the decoder keeps of the terminal's header, so commands go out addressed as it speaks. */
export interface Jt808Session {
  /** The header's phone number bytes, as hex. */
  terminal: string;
  /** The 2019 header's protocol version; absent for 2011/2013 headers. */
  version?: number;
}

export function rememberTerminal(conn: ProtocolState, terminal: Buffer, version: number | undefined): void {
  const kept = conn.state.jt808 as Jt808Session | undefined;
  // A terminal keeps its number and header version: what it sent last is mostly kept already.
  if (kept && kept.version === version && isHexOf(kept.terminal, terminal)) return;
  const seen: Jt808Session = { terminal: terminal.toString('hex'), version };
  conn.state.jt808 = seen;
}

const HEX_DIGITS = '0123456789abcdef';

/** Whether `hex` is the bytes written as hex (as Buffer writes it, lower case). */
function isHexOf(hex: string, bytes: Buffer): boolean {
  if (hex.length !== bytes.length * 2) return false;
  for (let i = 0; i < bytes.length; i++) {
    if (hex[2 * i] !== HEX_DIGITS[bytes[i]! >> 4] || hex[2 * i + 1] !== HEX_DIGITS[bytes[i]! & 0x0f]) return false;
  }
  return true;
}

/**
 * The header for a device id without a connection: up to 12 digits, the 2013 header's BCD number
 * (zero-padded); an id read from a non-BCD number (an IMEI whose first 14 digits fit 48 bits,
 * plus its Luhn digit), that number; anything longer, the 2019 header's 20-digit number.
 */
function headerOf(identity: string | undefined): Jt808Session {
  if (!identity || !/^\d{1,20}$/.test(identity)) throw new RangeError('JT808 commands need the terminal number');
  if (identity.length <= 12) return { terminal: identity.padStart(12, '0') };
  const value = Number(identity.slice(0, -1));
  if (identity.length <= 16 && value < 2 ** 48) return { terminal: value.toString(16).padStart(12, '0') };
  return { terminal: identity.padStart(20, '0'), version: 1 };
}

function downlink(type: number, commandSeq: number, body: Buffer, params: CommandParams, session?: ProtocolState): Buffer {
  const header = (session?.state.jt808 as Jt808Session | undefined) ?? headerOf(params.identity);
  return buildMessage(type, Buffer.from(header.terminal, 'hex'), commandSeq & 0xffff, body, header.version);
}

const control = (word: number) => (seq: number, params: CommandParams, session?: ProtocolState) =>
  downlink(DOWNLINK.TERMINAL_CONTROL, seq, Buffer.from([word]), params, session);

export const encodeEngineStop = control(CONTROL.relayOn);
export const encodeEngineResume = control(CONTROL.relayOff);
export const encodeReboot = control(CONTROL.reset);

export function encodeLocate(seq: number, params: CommandParams, session?: ProtocolState): Buffer {
  return downlink(DOWNLINK.POSITION_QUERY, seq, Buffer.alloc(0), params, session);
}

export function encodeSetInterval(seq: number, params: CommandParams, session?: ProtocolState): Buffer {
  if (params.seconds === undefined) throw new RangeError('JT808 setInterval needs seconds');
  const body = Buffer.alloc(1 + 4 + 1 + 4);
  body[0] = 1; // one parameter
  body.writeUInt32BE(REPORT_INTERVAL, 1);
  body[5] = 4;
  body.writeUInt32BE(params.seconds, 6);
  return downlink(DOWNLINK.SET_PARAMETERS, seq, body, params, session);
}

/**
 * `text`: a 0x8300 text message, which the terminal answers (0x0001, echoing the serial) and units
 * run as the SMS command it holds (`RELAY,1#`, `TIMER,30#`…). `hex`: a whole frame, sent as is (its
 * own serial is what the terminal echoes, not ours).
 */
export function encodeCustom(commandSeq: number, params: CommandParams, session?: ProtocolState): Buffer {
  if (params.text !== undefined) return downlink(DOWNLINK.TEXT_MESSAGE, commandSeq, Buffer.concat([Buffer.from([TEXT_URGENT]), Buffer.from(params.text, 'latin1')]), params, session);
  const hex = params.hex ?? '';
  if (!/^([0-9a-fA-F]{2})+$/.test(hex)) throw new RangeError('JT808 custom command needs text or a frame as hex');
  return Buffer.from(hex, 'hex');
}
