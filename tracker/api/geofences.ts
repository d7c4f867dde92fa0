// /api/public/v1/geofences: list and read (read scope), create, replace and delete (write scope).
import { Router } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { createGeofence, deleteGeofence, findGeofence, listGeofences, replaceGeofence } from '../geofences/repository.js';
import { GeofenceInput, ListQuery } from './metadata-schemas.js';
import { createdCursorOf, decodeCreatedCursor, DEFAULT_LIST_LIMIT, pageBody } from './paging.js';
import { presentGeofence } from './present.js';
import { caller, jsonBody, parseBody, parseQuery, requireScope } from './request.js';

const PATH = '/api/public/v1/geofences';
const notFound = (id: string) => new ApiError('not_found', `no geofence ${id}`);

export function geofencesRoutes(ctx: TrackerContext): Router {
  const router = Router();
  router.get(PATH, requireScope('read'), async (req, res) => {
    const q = parseQuery(ListQuery, req.query);
    const limit = q.limit ?? DEFAULT_LIST_LIMIT;
    const rows = await listGeofences(ctx.db, caller(res).accountId, decodeCreatedCursor(q.cursor), limit + 1);
    res.json(pageBody(rows, limit, q.limit !== undefined, createdCursorOf, presentGeofence));
  });
  router.post(PATH, requireScope('write'), jsonBody(), async (req, res) => {
    const input = parseBody(GeofenceInput, req.body);
    res.status(201).json(presentGeofence(await createGeofence(ctx.db, caller(res).accountId, input)));
  });
  router.get(`${PATH}/:id`, requireScope('read'), async (req, res) => {
    const id = req.params.id as string;
    const geofence = await findGeofence(ctx.db, caller(res).accountId, id);
    if (!geofence) throw notFound(id);
    res.json(presentGeofence(geofence));
  });
  router.put(`${PATH}/:id`, requireScope('write'), jsonBody(), async (req, res) => {
    const id = req.params.id as string;
    const input = parseBody(GeofenceInput, req.body);
    const geofence = await replaceGeofence(ctx.db, caller(res).accountId, id, input);
    if (!geofence) throw notFound(id);
    res.json(presentGeofence(geofence));
  });
  router.delete(`${PATH}/:id`, requireScope('write'), async (req, res) => {
    const id = req.params.id as string;
    if (!(await deleteGeofence(ctx.db, caller(res).accountId, id))) throw notFound(id);
    res.status(204).end();
  });
  return router;
}
