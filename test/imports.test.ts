// The import rules of the source tree, read from the import statements of every .ts file in
// tracker/, gateway/ and shared/: no circles; the gateway and shared/ never reach into the tracker;
// every folder of the tracker is named below as storage, a domain, an edge or composition; storage
// imports nothing above it; a domain never imports an edge or the composition; an edge never
// imports another edge; custom-rules/ and geofences/ stay below events/.
import { describe, expect, test } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** Storage: database access and migrations, at the bottom with the repo's shared/. */
const STORAGE = ['storage'];
/**
 * Domains: what the tracker knows, one folder each, importing storage, shared/ and other domains,
 * never an edge. http/ is what every HTTP edge runs behind (gateway authentication, health, page
 * headers); its app.ts, which mounts the edges, is composition.
 */
const DOMAINS = [
  'accounts',
  'alerts',
  'commands',
  'custom-rules',
  'devices',
  'drivers',
  'events',
  'feed',
  'geofences',
  'http',
  'inbound',
  'positions',
  'protocols',
  'records',
  'reports',
  'tokens',
  'users',
  'webhooks',
];
/**
 * Edges: the ways into the tracker (the simulator is one from outside: it drives the device ports).
 * Each imports domains, never another edge.
 */
const EDGES = ['api', 'dashboard', 'admin', 'ingest', 'simulator', 'stream'];
/**
 * Composition: the files that wire edges to domains. The HTTP app mounts every edge's routes and the
 * demo seed runs operator verbs at start-up, so both are wiring too.
 */
const COMPOSITION = ['tracker/server.ts', 'tracker/main.ts', 'tracker/boot.ts', 'tracker/context.ts', 'tracker/http/app.ts', 'tracker/demo.ts'];
/**
 * The run-time context is the one piece of composition every part is handed: naming its type (an
 * `import type`) is how a domain receives it, not a dependency on the wiring.
 */
const HANDED_TYPE = 'tracker/context.ts';
/** The one file at the top of tracker/ outside the composition: the metrics registry every part bumps. */
const TOP_DOMAIN_FILES = ['tracker/metrics.ts'];
/** events/ evaluates the definitions of custom-rules/ and geofences/, so those two sit below it. */
const BELOW_EVENTS = ['tracker/custom-rules/', 'tracker/geofences/'];

interface Import {
  from: string;
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

/** The project-relative imports of one file: static imports, re-exports and dynamic import(). */
function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: ts.Node | undefined, typeOnly: boolean) => {
    if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) return;
    const to = relative(ROOT, normalize(join(ROOT, dirname(file), specifier.text))).replace(/\.js$/, '.ts');
    found.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allNamedTypes = !!named && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
      add(node.moduleSpecifier, !!clause && (clause.isTypeOnly || (!clause.name && allNamedTypes)));
    } else if (ts.isExportDeclaration(node)) {
      add(node.moduleSpecifier, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function edgeOf(file: string): string | undefined {
  const [top, folder] = file.split('/');
  return top === 'tracker' && folder && EDGES.includes(folder) ? folder : undefined;
}

/** The rule an import breaks, if any. */
function brokenRule({ from, to, typeOnly }: Import): string | undefined {
  const [fromTop] = from.split('/');
  const [toTop] = to.split('/');
  if (fromTop === 'gateway' && toTop === 'tracker') return 'the gateway imports tracker code';
  if (fromTop === 'shared' && toTop !== 'shared') return 'shared/ imports a service';
  if (fromTop !== 'tracker' || toTop !== 'tracker' || COMPOSITION.includes(from)) return undefined;
  if (STORAGE.includes(from.split('/')[1]!) && !STORAGE.includes(to.split('/')[1]!)) return 'storage imports a layer above it';
  const fromEdge = edgeOf(from);
  const toEdge = edgeOf(to);
  if (!fromEdge) {
    if (toEdge) return `a domain imports the ${toEdge} edge`;
    if (COMPOSITION.includes(to) && !(to === HANDED_TYPE && typeOnly)) return 'a domain imports the composition';
    if (BELOW_EVENTS.some((below) => from.startsWith(below)) && to.startsWith('tracker/events/')) return 'a folder below events/ imports it';
    return undefined;
  }
  if (toEdge && toEdge !== fromEdge) return `the ${fromEdge} edge imports the ${toEdge} edge`;
  return undefined;
}

/** Every circle of imports (type-only ones too): the strongly connected parts of the graph. */
function circles(imports: Import[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of imports) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const to of next.get(file) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(file, Math.min(low.get(file)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(file, Math.min(low.get(file)!, index.get(to)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const part: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      part.push(member);
    } while (member !== file);
    if (part.length > 1 || next.get(file)?.includes(file)) found.push(part.sort());
  };
  for (const file of next.keys()) if (!index.has(file)) visit(file);
  return found;
}

const files = ['tracker', 'gateway', 'shared'].flatMap(sourceFiles);
const imports = files.flatMap(importsOf);
const broken = imports.flatMap((i) => {
  const rule = brokenRule(i);
  return rule ? [{ ...i, rule }] : [];
});

describe('imports', () => {
  test('every project import names a file that exists (the reading of the imports is sound)', () => {
    expect(imports.length).toBeGreaterThan(500);
    expect(imports.filter((i) => !files.includes(i.to)).map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });

  test('no file reaches itself through its imports', () => {
    expect(circles(imports)).toEqual([]);
  });

  test('every folder and top-level file of the tracker is classified as storage, a domain, an edge or composition', () => {
    const classified = [...STORAGE, ...DOMAINS, ...EDGES];
    const entries = readdirSync(join(ROOT, 'tracker'), { withFileTypes: true });
    const folders = entries.filter((e) => e.isDirectory() && sourceFiles(`tracker/${e.name}`).length > 0).map((e) => e.name);
    expect(folders.filter((f) => !classified.includes(f))).toEqual([]);
    expect(classified.filter((f) => !folders.includes(f))).toEqual([]);
    const topFiles = entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => `tracker/${e.name}`);
    expect(topFiles.filter((f) => !COMPOSITION.includes(f) && !TOP_DOMAIN_FILES.includes(f))).toEqual([]);
  });

  test('no import breaks a layer rule', () => {
    expect(broken.map((i) => `${i.from} -> ${i.to}: ${i.rule}`)).toEqual([]);
  });

  test('the rules catch what they name', () => {
    const rule = (from: string, to: string, typeOnly = false) => brokenRule({ from, to, typeOnly });
    expect(rule('gateway/app.ts', 'tracker/api/router.ts')).toBe('the gateway imports tracker code');
    expect(rule('tracker/devices/repository.ts', 'tracker/api/router.ts')).toBe('a domain imports the api edge');
    expect(rule('tracker/commands/dispatcher.ts', 'tracker/ingest/connections.ts')).toBe('a domain imports the ingest edge');
    expect(rule('tracker/metrics.ts', 'tracker/ingest/stats.ts')).toBe('a domain imports the ingest edge');
    expect(rule('tracker/webhooks/worker.ts', 'tracker/boot.ts')).toBe('a domain imports the composition');
    expect(rule('tracker/webhooks/index.ts', 'tracker/context.ts', true)).toBeUndefined();
    expect(rule('tracker/webhooks/index.ts', 'tracker/context.ts', false)).toBe('a domain imports the composition');
    expect(rule('tracker/dashboard/router.ts', 'tracker/admin/route.ts')).toBe('the dashboard edge imports the admin edge');
    expect(rule('tracker/api/devices.ts', 'tracker/devices/repository.ts')).toBeUndefined();
    expect(rule('tracker/storage/paging.ts', 'tracker/devices/repository.ts')).toBe('storage imports a layer above it');
    expect(rule('tracker/geofences/shape.ts', 'tracker/events/engine.ts')).toBe('a folder below events/ imports it');
    expect(rule('tracker/custom-rules/repository.ts', 'tracker/events/types.ts', true)).toBe('a folder below events/ imports it');
    expect(rule('tracker/admin/verbs.ts', 'tracker/dashboard/page-links.ts')).toBe('the admin edge imports the dashboard edge');
    expect(circles([{ from: 'a.ts', to: 'b.ts', typeOnly: true }, { from: 'b.ts', to: 'a.ts', typeOnly: false }, { from: 'b.ts', to: 'c.ts', typeOnly: false }])).toEqual([['a.ts', 'b.ts']]);
  });
});
