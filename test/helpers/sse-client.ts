// A Server-Sent Events client on a plain HTTP connection, as an integrator's would be: collects the
// events it reads (id, name, parsed data) and the comment lines, and can stop reading altogether to
// play a consumer that falls behind.
import http from 'node:http';

export interface SseEvent {
  id?: string;
  event: string;
  data: Record<string, unknown>;
}

export class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  ended = false;
  private buffer = '';
  private waiters: (() => void)[] = [];

  private constructor(
    readonly res: http.IncomingMessage,
    private readonly req: http.ClientRequest,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.take(chunk));
    const end = () => {
      this.ended = true;
      this.wake();
    };
    res.on('end', end);
    res.on('close', end);
    res.on('error', end);
  }

  /** Opens a stream (with a bearer token, or null for one the headers authorize); resolves once the answer's headers are in (whatever its status). */
  static open(url: string, token: string | null, headers: Record<string, string> = {}): Promise<SseClient> {
    const authorization = token === null ? {} : { authorization: `Bearer ${token}` };
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers: { ...authorization, accept: 'text/event-stream', ...headers } }, (res) => resolve(new SseClient(res, req)));
      req.on('error', reject);
    });
  }

  get status(): number {
    return this.res.statusCode!;
  }

  /** The body of an answer that is not a stream (an error). */
  async body(): Promise<Record<string, unknown>> {
    await this.until(() => this.ended, 5000);
    return JSON.parse(this.buffer) as Record<string, unknown>;
  }

  /** Resolves with the events so far once `accept` holds of them; rejects after the timeout. */
  async until(accept: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!accept()) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; events so far: ${JSON.stringify(this.events.map((e) => e.event))}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => (clearTimeout(t), resolve()));
      });
    }
  }

  named(name: string): SseEvent[] {
    return this.events.filter((e) => e.event === name);
  }

  /** Stops reading: what the server sends piles up in the socket buffers, then on the server. */
  stopReading(): void {
    this.res.pause();
  }

  close(): void {
    this.req.destroy();
  }

  private take(chunk: string): void {
    if (this.res.statusCode !== 200) {
      this.buffer += chunk;
      return;
    }
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) this.comments++;
        const colon = line.indexOf(':');
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1).replace(/^ /, '');
      }
      if (fields.data !== undefined) this.events.push({ id: fields.id, event: fields.event ?? 'message', data: JSON.parse(fields.data) as Record<string, unknown> });
    }
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
