// The account's geofences: list, read, create, replace and delete.
import type { TrackerContext } from '../context.js';
import { createGeofence, deleteGeofence, findGeofence, listGeofences, replaceGeofence } from '../geofences/repository.js';
import { GeofenceInput } from '../geofences/schemas.js';
import { collectionHandlers } from './collection.js';
import type { Handlers } from './operations.js';
import { presentGeofence } from './present.js';

export function geofencesHandlers(ctx: TrackerContext): Handlers {
  return collectionHandlers(ctx, {
    noun: 'geofence',
    input: GeofenceInput,
    present: presentGeofence,
    list: listGeofences,
    find: findGeofence,
    create: createGeofence,
    replace: replaceGeofence,
    remove: deleteGeofence,
  });
}
