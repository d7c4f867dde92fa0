// /api/public/v1/rules: the account's custom rules. List and read (read scope), create, replace
// and delete (write scope). A rule raises custom_rule_triggered when its condition starts to hold.
import { Router } from 'express';
import { ApiError } from '../../shared/errors.js';
import type { TrackerContext } from '../context.js';
import { createRule, deleteRule, findRule, listRules, replaceRule } from '../rules/repository.js';
import { ListQuery, RuleInput } from './metadata-schemas.js';
import { createdCursorOf, decodeCreatedCursor, DEFAULT_LIST_LIMIT, pageBody } from './paging.js';
import { presentRule } from './present.js';
import { caller, jsonBody, parseBody, parseQuery, requireScope } from './request.js';

const PATH = '/api/public/v1/rules';
const notFound = (id: string) => new ApiError('not_found', `no rule ${id}`);

export function rulesRoutes(ctx: TrackerContext): Router {
  const router = Router();
  router.get(PATH, requireScope('read'), async (req, res) => {
    const q = parseQuery(ListQuery, req.query);
    const limit = q.limit ?? DEFAULT_LIST_LIMIT;
    const rows = await listRules(ctx.db, caller(res).accountId, decodeCreatedCursor(q.cursor), limit + 1);
    res.json(pageBody(rows, limit, q.limit !== undefined, createdCursorOf, presentRule));
  });
  router.post(PATH, requireScope('write'), jsonBody(), async (req, res) => {
    const input = parseBody(RuleInput, req.body);
    res.status(201).json(presentRule(await createRule(ctx.db, caller(res).accountId, input)));
  });
  router.get(`${PATH}/:id`, requireScope('read'), async (req, res) => {
    const id = req.params.id as string;
    const rule = await findRule(ctx.db, caller(res).accountId, id);
    if (!rule) throw notFound(id);
    res.json(presentRule(rule));
  });
  router.put(`${PATH}/:id`, requireScope('write'), jsonBody(), async (req, res) => {
    const id = req.params.id as string;
    const input = parseBody(RuleInput, req.body);
    const rule = await replaceRule(ctx.db, caller(res).accountId, id, input);
    if (!rule) throw notFound(id);
    res.json(presentRule(rule));
  });
  router.delete(`${PATH}/:id`, requireScope('write'), async (req, res) => {
    const id = req.params.id as string;
    if (!(await deleteRule(ctx.db, caller(res).accountId, id))) throw notFound(id);
    res.status(204).end();
  });
  return router;
}
