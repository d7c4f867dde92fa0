// A real HTTP server standing in for an account owner's webhook URL: records every request and
// answers what the test says. It can go down and come back on the same port.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  /** Date.now() when the request arrived. */
  at: number;
}

/** Answers a request: a status, optional headers and body. Default 200. */
export type Responder = (req: Received, index: number) => { status: number; headers?: Record<string, string>; body?: string };

export class WebhookReceiver {
  readonly received: Received[] = [];
  respond: Responder = () => ({ status: 200 });
  private server: Server | null = null;
  private waiters: (() => void)[] = [];
  port = 0;

  static async start(host = '127.0.0.1', port = 0): Promise<WebhookReceiver> {
    const r = new WebhookReceiver();
    await r.listen(host, port);
    return r;
  }

  url(path = '/hook', host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r: Received = { headers: req.headers, body, at: Date.now() };
      const index = this.received.push(r) - 1;
      const answer = this.respond(r, index);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
      for (const w of this.waiters.splice(0)) w();
    });
  }

  async listen(host = '127.0.0.1', port = this.port): Promise<void> {
    const server = createServer((req, res) => this.handle(req, res));
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Stops answering: the port refuses connections until listen() again. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Resolves once `predicate` holds for what was received, or rejects after timeoutMs. */
  async waitFor(predicate: (received: Received[]) => boolean, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${this.received.length} requests received)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 250));
        this.waiters.push(() => (clearTimeout(timer), resolve()));
      });
    }
  }

  /** The distinct webhook-ids received. */
  ids(): Set<string> {
    return new Set(this.received.map((r) => String(r.headers['webhook-id'])));
  }

  close(): Promise<void> {
    return this.down();
  }
}
