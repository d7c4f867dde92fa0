// `npm start`: runs the tracker and the gateway as two processes (as in production), with embedded
// defaults. Ctrl-C (or SIGTERM) stops both; if either exits, the other is stopped too.
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, parseConfig } from '../shared/config.js';
import { ensureEmbeddedKeys } from '../shared/keys.js';
import { NODE_FLAGS } from '../shared/node-flags.js';

const config = loadConfig(parseConfig);
// What the services write under DATA_DIR (keys, the embedded database) is private to this user; the
// children inherit the mask.
process.umask(0o077);
if (!config.JWT_PUBLIC_KEY) ensureEmbeddedKeys(config.DATA_DIR); // both processes read the same keys

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const children = new Map<string, ChildProcess>();
let stopping = false;

function run(name: keyof typeof NODE_FLAGS, script: string): ChildProcess {
  const child = spawn(process.execPath, [...NODE_FLAGS[name], join(root, script)], { stdio: 'inherit', env: process.env });
  children.set(name, child);
  child.on('exit', (code, signal) => {
    children.delete(name);
    if (!stopping) {
      process.stderr.write(`${name} exited (${signal ?? code}); stopping\n`);
      stop(code === 0 ? 1 : (code ?? 1));
    } else if (children.size === 0) process.exit(process.exitCode ?? 0);
  });
  return child;
}

function stop(code: number): void {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  for (const child of children.values()) child.kill('SIGTERM');
  if (children.size === 0) process.exit(code);
  // The children stop gracefully within SHUTDOWN_TIMEOUT_SECONDS; past that they are killed.
  setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
    process.exit(code);
  }, config.SHUTDOWN_TIMEOUT_SECONDS * 1000 + 5000).unref();
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

run('tracker', 'tracker/main.js');
run('gateway', 'gateway/main.js');
