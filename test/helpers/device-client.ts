// A device on a real TCP socket: sends bytes, collects what the tracker answers. A phone's report
// over HTTP on a kept-alive connection.
import { request, type Agent } from 'node:http';
import { connect, type Socket } from 'node:net';

export class DeviceClient {
  private received = Buffer.alloc(0);
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.received = Buffer.concat([this.received, d]);
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
    socket.on('error', () => undefined);
  }

  static open(port: number): Promise<DeviceClient> {
    return new Promise((resolve, reject) => {
      const s = connect(port, '127.0.0.1', () => resolve(new DeviceClient(s)));
      s.once('error', reject);
    });
  }

  send(bytes: Buffer | string): void {
    this.socket.write(bytes);
  }

  /** Resolves with the next n bytes the tracker sends; rejects after the timeout. */
  async read(n: number, timeoutMs = 3000): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < n) {
      if (this.closed) throw new Error(`connection closed after ${this.received.length} of ${n} bytes`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${n} bytes (have ${this.received.length})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
    const out = this.received.subarray(0, n);
    this.received = this.received.subarray(n);
    return out;
  }

  /** Resolves true once the tracker closes the connection, false after the timeout. */
  async waitClosed(timeoutMs = 3000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    return this.closed;
  }

  /** Everything received and not yet read. */
  pending(): Buffer {
    return this.received;
  }

  close(): void {
    this.socket.destroy();
  }
}

export async function eventually<T>(probe: () => Promise<T>, accept: (v: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (accept(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A phone's GET on its agent's kept-alive connection; says whether the connection was reused. */
export function phoneReport(agent: Agent, port: number, path: string): Promise<{ status: number; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode!, reused: req.reusedSocket }));
    });
    req.on('error', reject);
    req.end();
  });
}
