// /api/public/v1/drivers: list and read (read scope), create, replace and delete (write scope);
// /api/public/v1/devices/{id}/driver: which driver drives a unit (read), and assigning one (write).
import { Router } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { assignDriver, createDriver, deleteDriver, deviceDriver, findDriver, listDrivers, replaceDriver } from '../drivers/repository.js';
import { callerDevice } from './devices.js';
import { DriverAssignmentInput, DriverInput, ListQuery } from './metadata-schemas.js';
import { createdCursorOf, decodeCreatedCursor, DEFAULT_LIST_LIMIT, pageBody } from './paging.js';
import { presentDriver } from './present.js';
import { caller, jsonBody, parseBody, parseQuery, requireScope } from './request.js';

const PATH = '/api/public/v1/drivers';
const notFound = (id: string) => new ApiError('not_found', `no driver ${id}`);

export function driversRoutes(ctx: TrackerContext): Router {
  const router = Router();
  router.get(PATH, requireScope('read'), async (req, res) => {
    const q = parseQuery(ListQuery, req.query);
    const limit = q.limit ?? DEFAULT_LIST_LIMIT;
    const rows = await listDrivers(ctx.db, caller(res).accountId, decodeCreatedCursor(q.cursor), limit + 1);
    res.json(pageBody(rows, limit, q.limit !== undefined, createdCursorOf, presentDriver));
  });
  router.post(PATH, requireScope('write'), jsonBody(), async (req, res) => {
    const input = parseBody(DriverInput, req.body);
    res.status(201).json(presentDriver(await createDriver(ctx.db, caller(res).accountId, input)));
  });
  router.get(`${PATH}/:id`, requireScope('read'), async (req, res) => {
    const id = req.params.id as string;
    const driver = await findDriver(ctx.db, caller(res).accountId, id);
    if (!driver) throw notFound(id);
    res.json(presentDriver(driver));
  });
  router.put(`${PATH}/:id`, requireScope('write'), jsonBody(), async (req, res) => {
    const id = req.params.id as string;
    const input = parseBody(DriverInput, req.body);
    const driver = await replaceDriver(ctx.db, caller(res).accountId, id, input);
    if (!driver) throw notFound(id);
    res.json(presentDriver(driver));
  });
  router.delete(`${PATH}/:id`, requireScope('write'), async (req, res) => {
    const id = req.params.id as string;
    if (!(await deleteDriver(ctx.db, caller(res).accountId, id))) throw notFound(id);
    res.status(204).end();
  });

  router.get('/api/public/v1/devices/:id/driver', requireScope('read'), async (req, res) => {
    const device = await callerDevice(ctx, caller(res).accountId, req.params.id as string);
    res.json({ deviceId: device.id, driverId: await deviceDriver(ctx.db, device.id) });
  });
  router.put('/api/public/v1/devices/:id/driver', requireScope('write'), jsonBody(), async (req, res) => {
    const { accountId } = caller(res);
    const device = await callerDevice(ctx, accountId, req.params.id as string);
    const { driverId } = parseBody(DriverAssignmentInput, req.body);
    await assignDriver(ctx.db, accountId, device.id, driverId);
    res.json({ deviceId: device.id, driverId });
  });
  return router;
}
