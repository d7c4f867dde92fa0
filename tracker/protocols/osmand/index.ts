// OsmAnd protocol entry point: an HTTP protocol, so there is no framer; the HTTP transport hands
// over the parsed query string or JSON body.
import type { HttpProtocol } from '../types.js';
import { decodeOsmAnd } from './decoder.js';

export { decodeOsmAnd, decodeOsmAndJson, decodeOsmAndQuery } from './decoder.js';
export type { OsmAndResult } from './decoder.js';

export const osmand: HttpProtocol = {
  name: 'osmand',
  transport: 'http',
  // The answer to a report lists the commands by name, one a line; the phone answers locate with a
  // report at once.
  commands: { locate: () => Buffer.from('locate') },
  decode(report, receivedAt) {
    const decoded = decodeOsmAnd(report, receivedAt);
    if (!decoded.ok) return { error: decoded.error };
    const { identity, positions, attributes } = decoded;
    // A phone has no command reply of its own: a report with a fix after a command is its answer.
    return { identity, positions, ...(attributes && { attributes }), ...(positions.length > 0 && { commandReply: 'position report' }) };
  },
};
