// The data of the live feed's events, for the OpenAPI document: a position as the history shows it
// with `fields=full` plus its unit, an event as the events list shows it plus the telemetry at it,
// and the last word to a client cut off.
import { z } from 'zod';
import { Event } from './metadata-schemas.js';
import { Position, Telemetry } from './schemas.js';

export const StreamPosition = Position.extend({ deviceId: z.string() }).meta({ id: 'StreamPosition' });

export const StreamEvent = Event.extend({ attributes: Telemetry }).meta({ id: 'StreamEvent' });

export const StreamCutoff = z
  .object({
    reason: z.enum(['slow_consumer', 'shutting_down']),
    message: z.string(),
  })
  .meta({ id: 'StreamCutoff' });
