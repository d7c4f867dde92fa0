// The build-if-stale check the npm commands run first: it builds when there is no build yet and when
// any source (code, migrations, dashboard assets, a deleted file) is newer than the last build, and
// otherwise leaves dist/ alone. Run in a small copy of the layout whose build appends a line to a log.
import { afterAll, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'build-if-stale-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(path: string, text = '') {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** Saves a path again: now, after the last build started. */
function touch(path: string) {
  const now = new Date();
  utimesSync(join(dir, path), now, now);
}

function check(): number {
  const run = spawnSync(process.execPath, [join(dir, 'scripts', 'build-if-stale.mjs')], { cwd: dir, encoding: 'utf8' });
  expect(run.status).toBe(0);
  return existsSync(join(dir, 'dist', 'log')) ? readFileSync(join(dir, 'dist', 'log'), 'utf8').split('\n').filter(Boolean).length : 0;
}

test('the npm commands that run compiled code run the check first', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  for (const name of ['start', 'admin', 'simulate', 'bench']) expect(scripts[name]).toMatch(/^node scripts\/build-if-stale\.mjs && /);
});

test('builds when there is no build or a source is newer, and only then', () => {
  write('scripts/build-if-stale.mjs');
  copyFileSync(join(ROOT, 'scripts', 'build-if-stale.mjs'), join(dir, 'scripts', 'build-if-stale.mjs'));
  write('package.json', JSON.stringify({ scripts: { build: 'mkdir -p dist && echo built >> dist/log' } }));
  for (const file of ['tracker/main.ts', 'tracker/storage/migrations/001.do.first.sql', 'tracker/dashboard/assets/app.css', 'shared/config.ts', 'gateway/main.ts', 'bench/run.ts']) write(file);

  expect(check()).toBe(1); // no build yet
  expect(check()).toBe(1); // nothing changed
  touch('tracker/main.ts');
  expect(check()).toBe(2);
  expect(check()).toBe(2);
  touch('tracker/storage/migrations/001.do.first.sql');
  expect(check()).toBe(3);
  touch('tracker/dashboard/assets/app.css');
  expect(check()).toBe(4);
  touch('gateway/main.ts');
  expect(check()).toBe(5);
  rmSync(join(dir, 'bench', 'run.ts')); // a deletion shows as its folder's time
  expect(check()).toBe(6);
  expect(check()).toBe(6);
});

test('a failed build fails the command and leaves the next run to build again', () => {
  write('package.json', JSON.stringify({ scripts: { build: 'exit 3' } }));
  touch('shared/config.ts');
  const run = spawnSync(process.execPath, [join(dir, 'scripts', 'build-if-stale.mjs')], { cwd: dir, encoding: 'utf8' });
  expect(run.status).toBe(3);
  write('package.json', JSON.stringify({ scripts: { build: 'mkdir -p dist && echo built >> dist/log' } }));
  expect(check()).toBe(7);
});
