// Binds the public API's handlers to the route catalogue by operationId: the path, method and scope
// come from the catalogue, and a handler missing for an operation, or one for no operation, stops
// the tracker at start-up rather than leaving a route unserved.
import { Router, type RequestHandler } from 'express';
import type { Operation } from '../../shared/catalogue.js';
import { requireScope } from './request.js';

/** What an operation runs after its scope check: one handler, or a chain (body parser first). */
export type Handlers = Record<string, RequestHandler | RequestHandler[]>;

export function bindOperations(operations: readonly Operation[], handlers: Handlers): Router {
  const ids = operations.map((o) => o.operationId);
  const duplicate = ids.filter((id, i) => ids.indexOf(id) !== i);
  const missing = ids.filter((id) => !Object.hasOwn(handlers, id));
  const extra = Object.keys(handlers).filter((id) => !ids.includes(id));
  const problems = [
    duplicate.length ? `operationId used twice: ${duplicate.join(', ')}` : '',
    missing.length ? `no handler for ${missing.join(', ')}` : '',
    extra.length ? `handlers for no operation: ${extra.join(', ')}` : '',
  ].filter(Boolean);
  if (problems.length) throw new Error(`public API: ${problems.join('; ')}`);
  const router = Router();
  for (const op of operations) {
    const chain = [op.scope ? [requireScope(op.scope)] : [], handlers[op.operationId]!].flat();
    const method = op.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    router[method](op.path.replace(/\{(\w+)\}/g, ':$1'), ...chain);
  }
  return router;
}
