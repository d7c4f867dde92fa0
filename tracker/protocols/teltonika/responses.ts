// Codec 12 and 13 packets from the device: the response to a command we sent (type 06), serial
// port data passed through (RS232 scales, card readers), and camera transfers (type 0D, not
// supported). Layout after codec and count:
//   type | size(4) | [timestamp(4), Codec 13 only, counted in size] | data
// Traccar stores each as a position at the last known place with the text in `result`; so do we
// (not valid, so it never moves the device), and a type 06 text is the command's reply as well.
import type { Reader } from '../reader.js';
import type { Telemetry } from '../../positions/telemetry.js';
import type { DecodeResult } from '../types.js';
import { atLastFix, type LastFix } from '../last-fix.js';

const TYPE_RESPONSE = 0x06;
const TYPE_CAMERA = 0x0d;
const CLOCK_SET = Date.UTC(2000, 0, 1);

/** The vocabulary's longest text; the command keeps the whole reply. */
const MAX_RESULT = 256;

/** Printable ASCII and line breaks: shown as text; anything else as hex. */
const PRINTABLE = /^[\x20-\x7e\t\r\n]*$/;

/** The packet's first response (devices send one per packet); `stamped` for Codec 13. */
export function decodeResponse(r: Reader, stamped: boolean, last: LastFix | undefined): Pick<DecodeResult, 'positions' | 'commandReply' | 'attributes'> {
  const type = r.u8();
  if (type === TYPE_CAMERA) return { positions: [] };
  let size = r.u32();
  // Codec 12 carries no time: the response is as recent as its arrival.
  let time = new Date();
  if (stamped) {
    // A device whose clock is not set stamps seconds since power-on: the arrival time is better.
    const stamp = r.u32() * 1000;
    if (stamp >= CLOCK_SET) time = new Date(stamp);
    size -= 4;
  }
  const data = r.bytes(size);
  const text = data.toString('latin1');
  const printable = PRINTABLE.test(text);
  const attributes: Telemetry = {};
  let commandReply: string | undefined;
  if (printable && text.startsWith('GTSL')) {
    // A driver card reader's identification: GTSL|type|…|card number|…
    const card = text.split('|')[4];
    if (card) attributes.driverUniqueId = card;
  } else {
    const reply = printable ? text.trim() : data.toString('hex');
    attributes.result = reply.slice(0, MAX_RESULT);
    if (type === TYPE_RESPONSE) commandReply = reply;
  }
  // Without a known place (nothing reported yet on this connection) there is no position to store.
  const positions = last ? [atLastFix(last, time, attributes)] : [];
  return { positions, ...(commandReply !== undefined && { commandReply }), ...(!last && { attributes }) };
}
