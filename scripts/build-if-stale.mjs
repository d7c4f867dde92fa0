// Builds dist/ only when a source is newer than the last build, so `npm start`, `npm run admin`,
// `npm run simulate` and `npm run bench` start at once on an unchanged tree. Plain JavaScript: it
// runs before anything is compiled.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Everything `npm run build` reads: the compiled folders (migrations and dashboard assets live in
// tracker/) and the files that say how to compile.
const SOURCES = ['tracker', 'shared', 'gateway', 'scripts', 'bench', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];
const STAMP = join(root, 'dist', '.build-stamp');

/** Newest modification time under path; a folder's own time counts, so a deleted file is seen too. */
function newest(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const built = statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs ?? 0;
if (Math.max(...SOURCES.map((s) => newest(join(root, s)))) > built) {
  // The stamp takes the time the build started: a source saved while it runs is built next time.
  const started = new Date();
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
  writeFileSync(STAMP, '');
  utimesSync(STAMP, started, started);
}
