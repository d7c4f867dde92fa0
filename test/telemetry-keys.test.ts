// "Nothing else reaches into raw keys": outside the vocabulary module (tracker/positions/telemetry.ts)
// and the protocol folders (decoders and their IO maps, which turn wire values into the vocabulary),
// no tracker source names a position attribute that is not in the vocabulary, and none reaches an
// attribute by a string or through a cast. Read from each file's syntax tree, so comments and
// unrelated strings do not count. A finding is one of:
//   - `x.attributes.name` where `name` is neither a vocabulary key nor `io`;
//   - `x.attributes['name']` (a key as a string escapes the type; `io[...]` under it is raw by design);
//   - `x.attributes as …` or `<…>x.attributes` (a cast that would let any key through);
//   - `attributes: { name: … }` in an object literal, with `name` outside the vocabulary;
//   - a string "attributes.name…" (a custom-rule variable) with `name` outside the vocabulary;
//   - a field, parameter or variable named `attributes` declared with another type than Telemetry
//     (an open record such as Record<string, unknown> would let any key in or out unchecked).
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { telemetryEntry } from '../tracker/positions/telemetry.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ALLOWED = ['tracker/positions/telemetry.ts', 'tracker/protocols/'];

const known = (name: string) => name === 'io' || telemetryEntry(name) !== undefined;
/**
 * `attributes` or `<anything>.attributes`. A command's `attributes` (its parameters, named as the API
 * and Traccar name them) are typed `CommandParams` and are not telemetry.
 */
const isAttributes = (e: ts.Expression) => (ts.isIdentifier(e) && e.text === 'attributes') || (ts.isPropertyAccessExpression(e) && e.name.text === 'attributes');

function findings(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const at = (node: ts.Node, what: string) => out.push(`${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${what}`);
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && isAttributes(node.expression) && !known(node.name.text)) at(node, `unknown attribute "${node.name.text}"`);
    if (ts.isElementAccessExpression(node) && isAttributes(node.expression) && ts.isStringLiteralLike(node.argumentExpression)) at(node, `attribute by string "${node.argumentExpression.text}"`);
    if ((ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) && isAttributes(node.expression)) at(node, 'attributes through a cast');
    if (ts.isPropertyAssignment(node) && node.name.getText(source) === 'attributes' && ts.isObjectLiteralExpression(node.initializer)) {
      for (const p of node.initializer.properties) if (p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) && !known(p.name.text)) at(p, `unknown attribute "${p.name.text}"`);
    }
    if ((ts.isPropertySignature(node) || ts.isParameter(node) || ts.isVariableDeclaration(node)) && node.name.getText(source) === 'attributes' && node.type && !/^(Telemetry|CommandParams)( \| undefined)?$/.test(node.type.getText(source))) {
      at(node, `attributes typed ${node.type.getText(source)}`);
    }
    if (ts.isStringLiteralLike(node)) {
      const m = /^attributes\.([^.]+)/.exec(node.text);
      if (m && !known(m[1]!)) at(node, `unknown attribute "${m[1]}" in "${node.text}"`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

describe('telemetry keys', () => {
  test('no tracker source outside the vocabulary module and the decoders reaches into raw attribute keys', () => {
    const files = sourceFiles('tracker').filter((f) => !ALLOWED.some((a) => f.startsWith(a)));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap((f) => findings(f, readFileSync(join(ROOT, f), 'utf8')))).toEqual([]);
  });

  test('the check finds each kind of raw access, and accepts typed ones', () => {
    const sample = [
      'const a = obs.attributes.fuel + obs.attributes.io.x;', // typed: fine
      'const b = obs.attributes.status;',
      "const c = attributes['fuel'];",
      'const d = p.attributes as Record<string, unknown>;',
      'const e = { attributes: { ignition: true, gnssStatus: 1 } };',
      "const f = { var: 'attributes.fule' };",
      "const g = { var: 'attributes.io.200' };", // raw by design: fine
      'function h(attributes: Record<string, unknown>, t: { attributes?: Telemetry }) {}',
    ].join('\n');
    expect(findings('sample.ts', sample)).toEqual([
      'sample.ts:2 unknown attribute "status"',
      'sample.ts:3 attribute by string "fuel"',
      'sample.ts:4 attributes through a cast',
      'sample.ts:5 unknown attribute "gnssStatus"',
      'sample.ts:6 unknown attribute "fule" in "attributes.fule"',
      'sample.ts:8 attributes typed Record<string, unknown>',
    ]);
  });
});
