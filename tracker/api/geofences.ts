// /api/public/v1/geofences: list and read (read scope), create, replace and delete (write scope).
import type { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { createGeofence, deleteGeofence, findGeofence, listGeofences, replaceGeofence } from '../geofences/repository.js';
import { collectionRoutes } from './collection.js';
import { GeofenceInput } from './metadata-schemas.js';
import { presentGeofence } from './present.js';

export function geofencesRoutes(ctx: TrackerContext): Router {
  return collectionRoutes(ctx, {
    path: '/api/public/v1/geofences',
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
