// Geofences as the public API and the dashboard's form take and show them.
import { z } from 'zod';
import { nameField as name, textField as text, timestamp } from '../../shared/validation.js';
import { Shape } from './shape.js';

export const GeofenceInput = z
  .strictObject({
    name: name(100).meta({ description: '1 to 100 characters' }),
    description: text(500).default(''),
    shape: Shape,
  })
  .meta({ id: 'GeofenceInput' });

export const Geofence = z
  .object({ id: z.string().meta({ example: 'gfn_k3x9q2m7p4t8w6z5y2b3' }), name: z.string(), description: z.string(), shape: Shape, createdAt: timestamp, updatedAt: timestamp })
  .meta({ id: 'Geofence' });
