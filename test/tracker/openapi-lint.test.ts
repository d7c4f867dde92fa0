// The served OpenAPI document passes Spectral's OpenAPI ruleset (.spectral.yaml at the repository
// root, which names and justifies any rule turned off) with no error and no warning.
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTrackerFixture, type TrackerFixture } from '../helpers/tracker-app.js';

const run = promisify(execFile);

let f: TrackerFixture;
let dir: string;

beforeAll(async () => {
  f = await startTrackerFixture('pglite');
  dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
}, 120_000); // a tracker starting on a busy CI machine
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await f?.close();
});

it('lints clean with spectral:oas', async () => {
  const res = await f.as('acc_none').get('/api-docs/openapi.json');
  expect(res.status).toBe(200);
  const file = join(dir, 'openapi.json');
  writeFileSync(file, res.text);
  // Spectral exits non-zero when it finds anything at or above hint; its JSON report is the verdict.
  const out = await run('node_modules/.bin/spectral', ['lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--fail-severity', 'hint', '--quiet'], { maxBuffer: 64 * 1024 * 1024 }).catch(
    (err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout ?? '', stderr: err.stderr ?? '' }),
  );
  const findings = JSON.parse(out.stdout || '[]') as { code: string; message: string; path: string[]; severity: number }[];
  // Severity 0 is an error, 1 a warning.
  const problems = findings.filter((p) => p.severity <= 1).map((p) => `${p.code}: ${p.message} at ${p.path.join('.')}`);
  expect(problems).toEqual([]);
  expect(out.stderr).toBe('');
}, 60_000);
