// The Dockerfiles against the code (no Docker engine needed): each image's build stage copies every
// source its entry points import, its runtime stage every compiled folder they need, and every
// package they import is a production dependency (the runtime has `npm ci --omit=dev` only).
import { describe, expect, test } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../shared/node-flags.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; scripts: { build: string } };

/** Every repository file the entry points import (type imports too: the build compiles them), and every package. */
function importClosure(entries: string[]): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const text = readFileSync(join(ROOT, file), 'utf8');
    // Static imports and re-exports (one or several lines), side-effect imports, dynamic imports.
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'|^import\s+'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm)) {
      const spec = (m[1] ?? m[2] ?? m[3])!;
      if (spec.startsWith('.')) queue.push(relative(ROOT, join(ROOT, dirname(file), spec.replace(/\.js$/, '.ts'))));
      else if (!spec.startsWith('node:')) packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  return { files, packages };
}

interface Dockerfile {
  stages: { from: string; lines: string[] }[];
  text: string;
}

function dockerfile(path: string): Dockerfile {
  const text = readFileSync(join(ROOT, path), 'utf8');
  const stages: Dockerfile['stages'] = [];
  for (const line of text.split('\n').filter((l) => l.trim() && !l.startsWith('#'))) {
    const from = /^FROM (\S+)/.exec(line);
    if (from) stages.push({ from: from[1]!, lines: [] });
    else stages[stages.length - 1]!.lines.push(line);
  }
  return { stages, text };
}

/** Paths a stage copies, from the build context (`COPY a b`) or from another stage (`COPY --from=x a b`). */
function copied(lines: string[], fromStage: string | null): string[] {
  return lines
    .map((l) => /^COPY (--from=(\S+) )?(.+) \S+$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && (m[2] ?? null) === fromStage)
    .flatMap((m) => m[3]!.split(' '));
}

const IMAGES = {
  gateway: { file: 'gateway/Dockerfile', entries: ['gateway/main.ts', 'scripts/healthcheck.ts'], cmd: 'dist/gateway/main.js' },
  tracker: { file: 'tracker/Dockerfile', entries: ['tracker/main.ts', 'tracker/admin/cli.ts', 'scripts/healthcheck.ts'], cmd: 'dist/tracker/main.js' },
};

describe.each(Object.entries(IMAGES))('the %s image', (service, image) => {
  const { stages, text } = dockerfile(image.file);
  const [build, deps, runtime] = stages;
  const { files, packages } = importClosure(image.entries);

  test('is built in stages on Node 24 LTS, and runs as an unprivileged user with its Node flags and a health check', () => {
    expect(stages.map((s) => s.from)).toEqual(['node:24-slim', 'node:24-slim', 'node:24-slim']);
    expect(deps!.lines).toContain('RUN npm ci --omit=dev --loglevel=warn && npm cache clean --force');
    expect(runtime!.lines).toContain('USER node');
    expect(text).toContain(`CMD [${['node', '--enable-source-maps', ...NODE_FLAGS[service as keyof typeof NODE_FLAGS], image.cmd].map((a) => `"${a}"`).join(', ')}]`);
    expect(text).toContain(`CMD ["node", "dist/scripts/healthcheck.js", "${service}"]`);
  });

  test('builds as `npm run build` does, run-time files included', () => {
    // The build script copies files read at run time (migrations, static files) next to the code.
    const copiedByBuild = [...pkg.scripts.build.matchAll(/cp -r (\S+) /g)].map((m) => m[1]!);
    expect(copiedByBuild.length).toBeGreaterThan(0);
    if (copiedByBuild.some((f) => f.startsWith(`${service}/`))) expect(build!.lines).toContain('RUN npm run build');
    else expect(build!.lines).toContain('RUN npx tsc -p tsconfig.build.json');
  });

  test('compiles every source its entry points import', () => {
    const sources = copied(build!.lines, null);
    const missing = [...files].filter((f) => !sources.some((s) => f === s || f.startsWith(`${s}/`) || (s.endsWith('/') && f.startsWith(s))));
    expect(missing).toEqual([]);
    for (const s of sources) expect(existsSync(join(ROOT, s))).toBe(true);
  });

  test('ships the compiled code of exactly those folders, and production dependencies only', () => {
    const shipped = copied(runtime!.lines, 'build').map((p) => p.replace(/^\/app\//, ''));
    const needed = new Set([...files].map((f) => (f.startsWith('scripts/') ? `dist/${f.replace(/\.ts$/, '.js')}` : `dist/${f.split('/')[0]}`)));
    expect(shipped.sort()).toEqual([...needed].sort());
    expect(copied(runtime!.lines, 'deps')).toEqual(['/app/node_modules']);
    expect([...packages].filter((p) => !(p in pkg.dependencies))).toEqual([]);
  });
});
