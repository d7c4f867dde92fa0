// The account's custom rules: list, read, create, replace and delete. A rule
// raises custom_rule_triggered when its condition starts to hold.
import type { TrackerContext } from '../context.js';
import { createRule, deleteRule, findRule, listRules, replaceRule } from '../custom-rules/repository.js';
import { collectionHandlers } from './collection.js';
import { RuleInput } from './metadata-schemas.js';
import type { Handlers } from './operations.js';
import { presentRule } from './present.js';

export function rulesHandlers(ctx: TrackerContext): Handlers {
  return collectionHandlers(ctx, {
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
