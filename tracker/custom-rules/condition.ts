// The account-defined rule language: JSON Logic (jsonlogic.com), data only, evaluated by the
// json-logic-js library without eval. Conditions are checked when written: only the operators
// below, no property names that reach an object's prototype, and bounded size and depth, so an
// evaluation on the ingest path stays cheap whatever an account writes. `attributes.X` must name a
// key of the telemetry vocabulary (or `attributes.io.<anything>`): a misspelt key would otherwise
// read as missing forever and the rule would silently never fire.
import jsonLogic, { type RulesLogic } from 'json-logic-js';
import { closestTelemetryKey, telemetryEntry } from '../positions/telemetry.js';

export const MAX_CONDITION_CHARS = 4096;
export const MAX_CONDITION_DEPTH = 12;

/** Comparison, logic, arithmetic and string operators; no loops over arrays, no logging. */
export const OPERATORS = [
  'var', 'missing', 'missing_some',
  'if', '?:', '==', '===', '!=', '!==', '!', '!!', 'or', 'and',
  '<', '<=', '>', '>=', 'min', 'max', '+', '-', '*', '/', '%',
  'in', 'cat', 'substr',
] as const;
const ALLOWED = new Set<string>(OPERATORS);
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/** The problem with a condition, or null when it is usable. */
export function conditionProblem(condition: unknown): string | null {
  if (typeof condition !== 'object' || condition === null || Array.isArray(condition)) return 'must be a JSON Logic object such as {">": [{"var": "speed"}, 100]}';
  if (JSON.stringify(condition).length > MAX_CONDITION_CHARS) return `must be at most ${MAX_CONDITION_CHARS} characters of JSON`;
  return nodeProblem(condition, 1);
}

function nodeProblem(node: unknown, depth: number): string | null {
  if (depth > MAX_CONDITION_DEPTH) return `must be nested at most ${MAX_CONDITION_DEPTH} levels deep`;
  if (node === null || typeof node !== 'object') return null;
  if (Array.isArray(node)) {
    for (const item of node) {
      const problem = nodeProblem(item, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  const keys = Object.keys(node);
  if (keys.length !== 1) return `each operation is an object with exactly one operator (found ${keys.length} keys)`;
  const op = keys[0]!;
  if (!ALLOWED.has(op)) return `unknown or unsupported operator "${op.slice(0, 40)}"; allowed: ${OPERATORS.join(' ')}`;
  const args = (node as Record<string, unknown>)[op];
  if (op === 'var' || op === 'missing' || op === 'missing_some') return pathsProblem(op, args);
  return nodeProblem(args, depth + 1);
}

const isLiteral = (v: unknown) => v === null || typeof v !== 'object';

/**
 * Variable names must be literal strings, dotted paths into the position that never climb into a
 * prototype: a name computed by an operation (`{"var": {"cat": ["constructor.na", "me"]}}`) could
 * not be checked here, so it is refused.
 */
function pathsProblem(op: 'var' | 'missing' | 'missing_some', args: unknown): string | null {
  const list = Array.isArray(args) ? args : [args];
  let names: unknown[];
  if (op === 'var') {
    if (list.length > 2 || !isLiteral(list[1])) return 'a "var" takes a variable name and at most a literal default';
    names = [list[0]];
  } else if (op === 'missing') {
    names = list;
  } else {
    if (list.length !== 2 || typeof list[0] !== 'number' || !Array.isArray(list[1])) return '"missing_some" takes a count and a list of variable names';
    names = list[1];
  }
  for (const name of names) {
    if (typeof name !== 'string') return `variable names must be literal strings such as "speed" (in "${op}")`;
    const segments = name.split('.');
    if (segments.some((segment) => FORBIDDEN_SEGMENTS.has(segment))) return `variable "${name.slice(0, 60)}" is not allowed`;
    const problem = attributeProblem(segments);
    if (problem) return problem;
  }
  return null;
}

function attributeProblem([root, key]: string[]): string | null {
  if (root !== 'attributes' || key === undefined || key === 'io' || telemetryEntry(key)) return null;
  const shown = key.slice(0, 40);
  return `unknown attribute "attributes.${shown}": did you mean "attributes.${closestTelemetryKey(shown)}"? (raw protocol values are under "attributes.io.<id>")`;
}

/** A copy of the data whose objects have no prototype, so no path can reach one whatever it names. */
function withoutPrototypes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPrototypes);
  if (value === null || typeof value !== 'object') return value;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [key, item] of Object.entries(value)) copy[key] = withoutPrototypes(item);
  return copy;
}

/** A condition as stored: a JSON object checked by conditionProblem. */
export type Condition = Record<string, unknown>;

/** Evaluates a checked condition; a failure (a type the operator cannot use) counts as false. */
export function conditionHolds(condition: Condition, data: Record<string, unknown>): boolean {
  try {
    return jsonLogic.truthy(jsonLogic.apply(condition as RulesLogic, withoutPrototypes(data)));
  } catch {
    return false;
  }
}
