// The `monitoring` profile's Prometheus files as Prometheus reads them (`promtool`, from Debian's
// `prometheus` package; CI installs it): the configuration and the alert rules are valid, the
// alerts' unit tests pass, every metric an alert reads is one the product exports, and every
// gateway and tracker replica is scraped on its metrics port.
import { describe, expect, test } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { findProgram } from '../helpers/nginx.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const promtool = findProgram('promtool');
if (!promtool) process.stderr.write('monitoring.test.ts skipped: promtool is not installed (apt-get install --no-install-recommends prometheus)\n');
const suite = promtool ? describe : describe.skip;

const run = (...args: string[]) => spawnSync(promtool!, args, { cwd: ROOT, encoding: 'utf8' });
const yamlFile = <T>(path: string) => parse(readFileSync(join(ROOT, path), 'utf8')) as T;

/** Every fleet_* metric the product registers (`name: 'fleet_…'` in its sources). */
function exportedMetrics(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.ts')) for (const m of readFileSync(join(ROOT, path), 'utf8').matchAll(/name: '(fleet_[a-z0-9_]+)'/g)) names.add(m[1]!);
    }
  };
  for (const dir of ['gateway', 'tracker', 'shared']) walk(dir);
  return names;
}

interface Rules {
  groups: { rules: { alert: string; expr: string }[] }[];
}

suite('monitoring/', () => {
  test('promtool accepts the configuration and the rules, and the alerts pass their unit tests', () => {
    for (const args of [
      ['check', 'config', 'monitoring/prometheus.yml'],
      ['check', 'rules', 'monitoring/alerts.yml'],
      ['test', 'rules', 'monitoring/alerts.test.yml'],
    ]) {
      const r = run(...args);
      expect({ args, status: r.status, output: r.status === 0 ? '' : r.stdout + r.stderr }).toEqual({ args, status: 0, output: '' });
    }
  });

  test('alerts on what docs/operations.md names, reading only metrics the product exports', () => {
    const rules = yamlFile<Rules>('monitoring/alerts.yml').groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.alert).sort()).toEqual(
      ['FleetDeviceCountDrop', 'FleetGateway5xx', 'FleetIngestStalled', 'FleetNoPositions', 'FleetPostgresDown', 'FleetRedisDown', 'FleetReplicaDown', 'FleetWebhookBacklog'].sort(),
    );
    const exported = exportedMetrics();
    const read = new Set(rules.flatMap((r) => [...r.expr.matchAll(/\b(fleet_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|count|sum)$/, ''))));
    expect([...read].filter((name) => !exported.has(name))).toEqual([]);
    expect(read.size).toBeGreaterThanOrEqual(8);
  });

  test('scrapes every replica of the gateway and the tracker on their metrics ports', () => {
    const compose = yamlFile<{ services: Record<string, { environment: Record<string, string> }> }>('docker-compose.yml').services;
    const jobs = yamlFile<{ scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; type: string; port: number }[] }[] }>('monitoring/prometheus.yml').scrape_configs;
    const byJob = Object.fromEntries(jobs.map((j) => [j.job_name, j.dns_sd_configs[0]!]));
    expect(byJob.gateway).toMatchObject({ names: ['gateway'], type: 'A', port: Number(compose.gateway!.environment.GATEWAY_METRICS_PORT) });
    expect(byJob.tracker).toMatchObject({ names: ['tracker'], type: 'A', port: Number(compose.tracker!.environment.TRACKER_METRICS_PORT) });
  });
});
