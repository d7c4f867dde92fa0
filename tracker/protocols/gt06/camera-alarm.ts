// The dash cameras' alarm message 0x95 (JC100, JC400): a short form with only the time, or a GPS
// block (the JC400 sends a marker, a full block with a 2-byte speed after the course word, and its
// supply voltage), then the event code, its data and the names of the video files it recorded.
import { addAlarm, type Telemetry } from '../../positions/telemetry.js';
import { CAMERA_EVENTS } from './alarms.js';
import { type Found, ioText, type Message, readDate, readGps, report } from './blocks.js';

export function decodeCameraAlarm(m: Message): Found {
  const { r } = m;
  const a: Telemetry = {};
  const jc400 = m.variant === 'jc400';
  // Body length past the 6-byte time and the 3 event bytes: a GPS block follows the time.
  const withGps = m.declared - 5 > 7;
  let fix = null;
  if (withGps) {
    if (jc400) r.skip(2 + 1); // marker, version
    fix = readGps(r, a, jc400 ? { wideSpeedLast: true } : { satellites: false, speed: false });
  } else {
    readDate(r);
  }
  if (jc400) a.power = r.u16() / 10;
  const event = r.u8();
  a.event = event;
  const io: Record<string, number | string> = {};
  // The short form's declared length ends at the event code.
  if (r.remaining >= 2) io.eventData = r.u16();
  const alarm = event === 0x01 ? (withGps ? 'sos' : 'general') : CAMERA_EVENTS[event];
  if (alarm) addAlarm(a, alarm);
  if (r.remaining > 0) io.eventFiles = ioText(r.bytes(r.remaining).toString('ascii'));
  if (Object.keys(io).length > 0) a.io = io;
  return report(fix, a);
}
