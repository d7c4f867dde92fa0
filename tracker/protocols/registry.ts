// Every protocol the tracker speaks. Adding one is a folder and a line here.
import { gps103 } from './gps103/index.js';
import { gt06 } from './gt06/index.js';
import { h02 } from './h02/index.js';
import { osmand } from './osmand/index.js';
import { teltonika } from './teltonika/index.js';
import { tk103 } from './tk103/index.js';
import type { CommandParams, CommandType, HttpProtocol, Protocol } from './types.js';

/** The TCP protocols, recognised on the device ports. */
export const PROTOCOLS: Protocol[] = [gt06, teltonika, h02, gps103, tk103];

/** The HTTP protocols, each on its own port. */
export const HTTP_PROTOCOLS: HttpProtocol[] = [osmand];

const BY_NAME = new Map<string, Protocol | HttpProtocol>([...PROTOCOLS, ...HTTP_PROTOCOLS].map((p) => [p.name, p]));

/** Every protocol's name, TCP then HTTP (the labels of the per-protocol metrics). */
export const PROTOCOL_NAMES: string[] = [...BY_NAME.keys()];

/** Encodes a command for a device speaking `protocol`; null when the protocol has no such command. */
export function encodeCommand(protocol: string, command: CommandType, commandSeq: number, params: CommandParams = {}): Buffer | null {
  return BY_NAME.get(protocol)?.commands[command]?.(commandSeq, params) ?? null;
}

/** Whether a device speaking `protocol` can be sent `command`. */
export function canSend(protocol: string, command: CommandType): boolean {
  return BY_NAME.get(protocol)?.commands[command] !== undefined;
}
