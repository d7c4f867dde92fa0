// What a simulated unit reads back from the tracker, protocol by protocol: the stream cut into the
// server's messages and each one told apart as the login's answer, a report's ACK, a refusal or a
// command. The simulator and the ingest benchmark check the ACKs with it.
import { unescape } from '../protocols/jt808/framer.js';
import { readHeader } from '../protocols/jt808/message.js';
import type { SimProtocol } from './protocols.js';

export type AnswerKind = 'login' | 'ack' | 'refusal' | 'command' | 'other';

export interface Answer {
  kind: AnswerKind;
  bytes: Buffer;
}

/** The protocols whose units get an answer to every position report (OsmAnd: its HTTP response). */
export const ACKED_REPORTS: ReadonlySet<SimProtocol> = new Set(['gt06', 'teltonika', 'h02', 'ruptela', 'wialon', 'jt808', 'osmand']);

/** The protocols whose login (handshake, identification, registration) is answered. */
export const ANSWERED_LOGIN: ReadonlySet<SimProtocol> = new Set(['gt06', 'teltonika', 'ruptela', 'wialon', 'jt808', 'gps103', 'tk103']);

/** Cuts one message off the front of `buf`: its length, or 0 while it is incomplete. */
type Cut = (buf: Buffer, loggedIn: boolean) => number;
type Classify = (message: Buffer, loggedIn: boolean) => AnswerKind;

const upTo = (terminator: string) => (buf: Buffer) => {
  const end = buf.indexOf(terminator, 0, 'latin1');
  return end < 0 ? 0 : end + terminator.length;
};
const text = (b: Buffer) => b.toString('latin1');
/** Protocols whose server sends nothing but commands on its own: the whole read is one message. */
const whole: Cut = (buf) => buf.length;

const READERS: Record<Exclude<SimProtocol, 'osmand'>, { cut: Cut; classify: Classify }> = {
  gt06: {
    cut: (b) => (b.length < 3 ? 0 : b[0] === 0x79 ? (b.length < 4 ? 0 : b.readUInt16BE(2) + 6) : b[2]! + 5),
    // Protocol number: 01 login, 12/16/22 the reports the simulator sends, 80 a command.
    classify: (m) => {
      const proto = m[0] === 0x79 ? m[4] : m[3];
      return proto === 0x01 ? 'login' : proto === 0x12 || proto === 0x16 || proto === 0x22 ? 'ack' : proto === 0x80 ? 'command' : 'other';
    },
  },
  teltonika: {
    // 01/00 to the IMEI; then a 4-byte record count, or a Codec 12 packet (zero preamble).
    cut: (b, loggedIn) => (!loggedIn ? 1 : b.length < 4 ? 0 : b.readUInt32BE(0) !== 0 ? 4 : b.length < 8 ? 0 : 8 + b.readUInt32BE(4) + 4),
    classify: (m, loggedIn) => (!loggedIn ? (m[0] === 1 ? 'login' : 'refusal') : m.length === 4 ? (m.readUInt32BE(0) > 0 ? 'ack' : 'refusal') : 'command'),
  },
  h02: { cut: upTo('#'), classify: (m) => (text(m).includes(',V4,V1,') ? 'ack' : 'command') },
  ruptela: {
    cut: (b) => (b.length < 2 ? 0 : b.readUInt16BE(0) + 4),
    // Command 100 (records: 1 accepted, 0 refused), 115 (identification); the rest are commands.
    classify: (m) => (m[2] === 100 ? (m[3] === 1 ? 'ack' : 'refusal') : m[2] === 115 ? (m[3] === 1 ? 'login' : 'refusal') : 'command'),
  },
  wialon: {
    cut: upTo('\r\n'),
    classify: (m) => {
      const line = text(m).trimEnd();
      if (line === '#AL#1') return 'login';
      if (line === '#AD#1' || line === '#ASD#1') return 'ack';
      return line.startsWith('#A') ? 'refusal' : 'command';
    },
  },
  jt808: {
    cut: (b) => (b[0] !== 0x7e ? Math.max(0, b.indexOf(0x7e)) || b.length : b.indexOf(0x7e, 1) + 1),
    // 8100 answers the registration; 8001 (the answered message's id at body offset 2, result at 4) the rest.
    classify: (m) => {
      const h = readHeader(unescape(m));
      if (!h || h.badChecksum) return 'other';
      if (h.type !== 0x8100 && h.type !== 0x8001) return 'command';
      h.r.skip(2); // the serial answered
      if (h.type === 0x8100) return h.r.u8() === 0 ? 'login' : 'refusal';
      const answered = h.r.u16();
      if (h.r.u8() !== 0) return 'refusal';
      return answered === 0x0200 || answered === 0x0704 ? 'ack' : answered === 0x0102 ? 'login' : 'other';
    },
  },
  gps103: {
    cut: (b) => (text(b).startsWith('LOAD') ? 4 : text(b).startsWith('ON') ? 2 : b.length),
    // ON answers a heartbeat, "**,imei:…,E;" an alarm; commands have no terminator.
    classify: (m) => (text(m) === 'LOAD' ? 'login' : text(m) === 'ON' || text(m).endsWith(',E;') ? 'other' : 'command'),
  },
  tk103: { cut: upTo(')'), classify: (m) => (/^\(\w+AP0[15]/.test(text(m)) ? 'login' : 'command') },
  gl200: { cut: upTo('$'), classify: (m) => (text(m).startsWith('+SACK') ? 'other' : 'command') },
  meitrack: { cut: upTo('\r\n'), classify: () => 'command' },
  suntech: { cut: whole, classify: () => 'command' },
};

export interface AnswerReader {
  /** The whole messages the chunk completes, in order. */
  push(chunk: Buffer): Answer[];
}

/** A reader for one connection's answers (TCP protocols; OsmAnd answers over HTTP). */
export function answerReader(protocol: Exclude<SimProtocol, 'osmand'>): AnswerReader {
  const { cut, classify } = READERS[protocol];
  let buffer: Buffer = Buffer.alloc(0);
  let loggedIn = false;
  return {
    push(chunk) {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      const out: Answer[] = [];
      for (let n = cut(buffer, loggedIn); n > 0 && n <= buffer.length; n = cut(buffer, loggedIn)) {
        const bytes = buffer.subarray(0, n);
        buffer = buffer.subarray(n);
        const kind = classify(bytes, loggedIn);
        if (kind === 'login') loggedIn = true;
        out.push({ kind, bytes });
      }
      return out;
    },
  };
}
