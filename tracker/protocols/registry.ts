// Every protocol the tracker speaks. Adding one is a folder and a line here.
import { gl200 } from './gl200/index.js';
import { gps103 } from './gps103/index.js';
import { gt06 } from './gt06/index.js';
import { h02 } from './h02/index.js';
import { jt808 } from './jt808/index.js';
import { meitrack } from './meitrack/index.js';
import { osmand } from './osmand/index.js';
import { ruptela } from './ruptela/index.js';
import { suntech } from './suntech/index.js';
import { teltonika } from './teltonika/index.js';
import { tk103 } from './tk103/index.js';
import { wialon } from './wialon/index.js';
import type { CommandParams, CommandType, HttpProtocol, Protocol, ProtocolState } from './types.js';

/** The TCP protocols, recognised on the device ports (meitrack before h02, whose detector takes any '$'). */
export const PROTOCOLS: Protocol[] = [gt06, teltonika, meitrack, h02, suntech, ruptela, wialon, gl200, jt808, gps103, tk103];

/** The HTTP protocols, each on its own port. */
export const HTTP_PROTOCOLS: HttpProtocol[] = [osmand];

const BY_NAME = new Map<string, Protocol | HttpProtocol>([...PROTOCOLS, ...HTTP_PROTOCOLS].map((p) => [p.name, p]));

/** Every protocol's name, TCP then HTTP (the labels of the per-protocol metrics). */
export const PROTOCOL_NAMES: string[] = [...BY_NAME.keys()];

/** Encodes a command for a device speaking `protocol`; null when the protocol has no such command. */
export function encodeCommand(protocol: string, command: CommandType, commandSeq: number, params: CommandParams = {}, session?: ProtocolState): Buffer | null {
  return BY_NAME.get(protocol)?.commands[command]?.(commandSeq, params, session) ?? null;
}

/** A running command number (1 and up) brought into what `protocol`'s commands carry, never 0. */
export function commandSeqFor(protocol: string, running: number): number {
  const found = BY_NAME.get(protocol);
  const max = found?.transport === 'tcp' ? (found.maxCommandSeq ?? 0x7fffffff) : 0x7fffffff;
  return ((running - 1) % max) + 1;
}

/** Whether a device speaking `protocol` can be sent `command`. */
export function canSend(protocol: string, command: CommandType): boolean {
  return BY_NAME.get(protocol)?.commands[command] !== undefined;
}

/** The commands a device speaking `protocol` can be sent. */
export function commandTypes(protocol: string): CommandType[] {
  return Object.keys(BY_NAME.get(protocol)?.commands ?? {}) as CommandType[];
}
