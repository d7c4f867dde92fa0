// Every TCP protocol the device server speaks. Adding one is a folder and a line here.
import { gt06 } from './gt06/index.js';
import { h02 } from './h02/index.js';
import { teltonika } from './teltonika/index.js';
import type { Protocol } from './types.js';

export const PROTOCOLS: Protocol[] = [gt06, teltonika, h02];

/** Protocols that can encode a locate request (OsmAnd phones answer one in their next report). */
const LOCATE = new Set([...PROTOCOLS.filter((p) => p.encodeLocate({ state: {} }, 0) !== null).map((p) => p.name), 'osmand']);

export function hasLocate(protocol: string): boolean {
  return LOCATE.has(protocol);
}
