// The live feed's query: which units, which kinds of entry and which event types a stream shows.
import { z } from 'zod';
import { EVENT_TYPES } from '../events/types.js';
import { FEED_KINDS } from './entries.js';

/** Units one stream may name: a dispatcher's view, not the fleet (the whole fleet is the default). */
export const MAX_STREAM_DEVICES = 500;

const list = (max: number, item: RegExp) =>
  z
    .string()
    .max(max * 65)
    .regex(new RegExp(`^${item.source}(,${item.source})*$`), 'a comma-separated list');

export const StreamQuery = z.object({
  deviceIds: list(MAX_STREAM_DEVICES, /[A-Za-z0-9_-]{1,64}/)
    .optional()
    .meta({ description: `Only these units: up to ${MAX_STREAM_DEVICES} comma-separated unit ids; default every unit of the account` }),
  kinds: list(FEED_KINDS.length, /[a-z]{1,16}/)
    .optional()
    .meta({ description: `Only these kinds of entry, comma-separated: ${FEED_KINDS.join(', ')}; default all` }),
  eventTypes: list(EVENT_TYPES.length, /[a-z_]{1,32}/)
    .optional()
    .meta({ description: `Only events of these types, comma-separated: ${EVENT_TYPES.join(', ')}; default all (positions and commands are not affected)` }),
});
export type StreamQuery = z.infer<typeof StreamQuery>;
