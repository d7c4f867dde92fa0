// Before any test: the machine's PostgreSQL and Redis must answer, or the run stops with one clear line.
import { Socket } from 'node:net';

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = new Socket();
    s.setTimeout(2000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.connect(port, '127.0.0.1');
  });
}

export default async function globalSetup(): Promise<void> {
  for (const [name, port] of [['PostgreSQL', 5432], ['Redis', 6379]] as const) {
    if (!(await reachable(port))) throw new Error(`${name} is not answering on 127.0.0.1:${port}; start it (see .ci/run)`);
  }
}
