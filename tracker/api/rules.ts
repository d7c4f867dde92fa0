// /api/public/v1/rules: the account's custom rules. List and read (read scope), create, replace
// and delete (write scope). A rule raises custom_rule_triggered when its condition starts to hold.
import type { Router } from 'express';
import type { TrackerContext } from '../context.js';
import { createRule, deleteRule, findRule, listRules, replaceRule } from '../rules/repository.js';
import { collectionRoutes } from './collection.js';
import { RuleInput } from './metadata-schemas.js';
import { presentRule } from './present.js';

export function rulesRoutes(ctx: TrackerContext): Router {
  return collectionRoutes(ctx, {
    path: '/api/public/v1/rules',
    noun: 'rule',
    input: RuleInput,
    present: presentRule,
    list: listRules,
    find: findRule,
    create: createRule,
    replace: replaceRule,
    remove: deleteRule,
  });
}
