// Runs a service entry point (gateway/main.ts, tracker/main.ts, …) as a real child process under
// tsx (or its compiled dist/ file), waits for its JSON "… started" log line to learn the port, and
// keeps its output.
// Call stopAllServices() in afterAll; children still alive when jest exits are killed too.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NODE_FLAGS } from '../../shared/node-flags.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Service {
  port: number;
  pid: number;
  /** stdout and stderr lines so far, in arrival order. */
  logs: string[];
  /** Resolves with the first log line (parsed JSON) the predicate accepts. */
  waitForLog(predicate: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGTERM, then SIGKILL after a grace period; resolves once the process has exited. */
  stop(): Promise<void>;
  /** Resolves when the process exits, however it was stopped. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  /** Picks the port out of a parsed log line; default: a "… started" line with `port` or `httpPort`. */
  portFrom?: (line: Record<string, unknown>) => number | undefined;
  timeoutMs?: number;
  /** Runs the compiled build (dist/, as production does) instead of the sources under tsx; dist/ must be current. */
  compiled?: boolean;
}

const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function defaultPort(line: Record<string, unknown>): number | undefined {
  if (typeof line.msg !== 'string' || !line.msg.endsWith('started')) return undefined;
  const port = line.port ?? line.httpPort;
  return typeof port === 'number' ? port : undefined;
}

function parse(line: string): Record<string, unknown> | null {
  if (!line.startsWith('{')) return null;
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/** The flags a service runs with in production (shared/node-flags.ts), for its entry point. */
function nodeFlags(entry: string): readonly string[] {
  const service = entry.split('/')[0];
  return entry.endsWith('/main.ts') && (service === 'tracker' || service === 'gateway') ? NODE_FLAGS[service] : [];
}

/**
 * Starts `node <its flags> --import tsx <entry>` (path relative to the repository), or its compiled
 * `dist/` file, with env added to ours.
 * Metrics listen on a free port unless env names one, so services started together never collide.
 */
export function startService(entry: string, env: Record<string, string>, opts: StartOptions = {}): Promise<Service> {
  const { NODE_OPTIONS: _jestOptions, ...inherited } = process.env;
  const program = opts.compiled ? [join(ROOT, 'dist', entry.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', join(ROOT, entry)];
  const child = spawn(process.execPath, [...nodeFlags(entry), ...program], {
    cwd: ROOT,
    env: { ...inherited, GATEWAY_METRICS_PORT: '0', TRACKER_METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const logs: string[] = [];
  const listeners = new Set<(line: string) => void>();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => (running.delete(child), resolve({ code, signal }))),
  );

  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines.filter(Boolean)) {
        logs.push(line);
        for (const listener of listeners) listener(line);
      }
    });
  }

  function waitForLog(predicate: (line: Record<string, unknown>) => boolean, timeoutMs = 10_000): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const check = (text: string) => {
        const line = parse(text);
        if (line && predicate(line)) return finish(() => resolve(line));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`${entry}: no matching log line within ${timeoutMs} ms\n${logs.join('\n')}`))), timeoutMs);
      const onExit = () => finish(() => reject(new Error(`${entry} exited (${child.exitCode ?? child.signalCode})\n${logs.join('\n')}`)));
      function finish(then: () => void) {
        clearTimeout(timer);
        listeners.delete(check);
        child.off('exit', onExit);
        then();
      }
      listeners.add(check);
      child.once('exit', onExit);
      for (const line of logs) check(line);
    });
  }

  async function stop(): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }

  const portFrom = opts.portFrom ?? defaultPort;
  return waitForLog((line) => portFrom(line) !== undefined, opts.timeoutMs ?? 20_000).then(
    (line) => ({ port: portFrom(line)!, pid: child.pid!, logs, waitForLog, stop, exited }),
    async (err: unknown) => {
      await stop();
      throw err;
    },
  );
}

/** Stops every service this test file started. */
export async function stopAllServices(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), 5000).unref();
        }),
    ),
  );
}
