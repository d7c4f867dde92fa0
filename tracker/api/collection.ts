// The handlers of an account's configuration collection (geofences, drivers, rules): list, read,
// create, replace and delete. Every call is scoped by the caller's account, and another account's
// record is the same 404 as an unknown one.
import type { z } from 'zod';
import { collectionOperationIds } from '../../shared/catalogue.js';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import type { Db } from '../storage/db.js';
import { createdCursorOf, decodeCreatedCursor, DEFAULT_LIST_LIMIT, pageBody } from '../storage/paging.js';
import { ListQuery } from './metadata-schemas.js';
import type { Handlers } from './operations.js';
import { caller, jsonBody, parseBody, parseQuery } from './request.js';

export interface Collection<Row extends { id: string; createdAt: Date }, Input> {
  /** The record's name: in a 404 ("no geofence …") and in the operationIds (listGeofences, getGeofence…). */
  noun: string;
  input: z.ZodType<Input>;
  present(row: Row): unknown;
  list(db: Db, accountId: string, after: { createdAt: Date; id: string } | null, limit: number): Promise<Row[]>;
  find(db: Db, accountId: string, id: string): Promise<Row | null>;
  create(db: Db, accountId: string, input: Input): Promise<Row>;
  replace(db: Db, accountId: string, id: string, input: Input): Promise<Row | null>;
  remove(db: Db, accountId: string, id: string): Promise<boolean>;
}

export function collectionHandlers<Row extends { id: string; createdAt: Date }, Input>(ctx: TrackerContext, c: Collection<Row, Input>): Handlers {
  const notFound = (id: string) => new ApiError('not_found', `no ${c.noun} ${id}`);
  const found = (row: Row | null, id: string): Row => {
    if (!row) throw notFound(id);
    return row;
  };
  const ids = collectionOperationIds(c.noun);
  return {
    async [ids.list](req, res) {
      const q = parseQuery(ListQuery, req.query);
      const limit = q.limit ?? DEFAULT_LIST_LIMIT;
      const rows = await c.list(ctx.db, caller(res).accountId, decodeCreatedCursor(q.cursor), limit + 1);
      res.json(pageBody(rows, limit, q.limit !== undefined, createdCursorOf, c.present));
    },
    [ids.create]: [
      jsonBody(),
      async (req, res) => {
        const input = parseBody(c.input, req.body);
        res.status(201).json(c.present(await c.create(ctx.db, caller(res).accountId, input)));
      },
    ],
    async [ids.get](req, res) {
      const id = req.params.id as string;
      res.json(c.present(found(await c.find(ctx.db, caller(res).accountId, id), id)));
    },
    [ids.replace]: [
      jsonBody(),
      async (req, res) => {
        const id = req.params.id as string;
        const input = parseBody(c.input, req.body);
        res.json(c.present(found(await c.replace(ctx.db, caller(res).accountId, id, input), id)));
      },
    ],
    async [ids.remove](req, res) {
      const id = req.params.id as string;
      if (!(await c.remove(ctx.db, caller(res).accountId, id))) throw notFound(id);
      res.status(204).end();
    },
  };
}
