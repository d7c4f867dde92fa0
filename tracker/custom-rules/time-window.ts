// A rule's time window: local days and hours in an IANA time zone. "from" later than "to" spans
// midnight (22:00–06:00); the day is the local day at the moment judged.
import { z } from 'zod';

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/;

export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export const TimeWindow = z
  .strictObject({
    days: z.array(z.enum(DAYS)).min(1).max(7).optional().meta({ description: 'Local days the window applies on; default every day' }),
    from: z.string().regex(HHMM, 'must be a time HH:MM (00:00 to 23:59)').meta({ description: 'Local start, HH:MM (inclusive)', example: '22:00' }),
    to: z.string().regex(HHMM, 'must be a time HH:MM (00:00 to 23:59)').meta({ description: 'Local end, HH:MM (exclusive); earlier than `from` spans midnight', example: '06:00' }),
    timeZone: z.string().max(64).refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin').default('UTC').meta({ description: 'IANA time zone, default UTC' }),
  })
  .refine((w) => w.from !== w.to, { message: 'from and to must differ', path: ['to'] })
  .meta({ id: 'TimeWindow' });
export type TimeWindow = z.infer<typeof TimeWindow>;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, weekday: 'short', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(timeZone, f);
  }
  return f;
}

const minutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** A test of whether a moment (ms) falls in the window. */
export function windowMatcher(w: TimeWindow): (time: number) => boolean {
  const from = minutes(w.from);
  const to = minutes(w.to);
  const days = w.days ? new Set<string>(w.days) : null;
  const f = formatter(w.timeZone);
  return (time) => {
    const parts = f.formatToParts(time);
    const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
    if (days && !days.has(part('weekday').toLowerCase())) return false;
    const m = Number(part('hour')) * 60 + Number(part('minute'));
    return from < to ? m >= from && m < to : m >= from || m < to;
  };
}
