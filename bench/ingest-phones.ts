// The ingest benchmark's phones: each OsmAnd report an HTTP/1.1 POST written straight onto the
// phone's one kept-alive connection, and each answer read by its status line and length. The load
// generator shares the machine's cores with the tracker and the database, and Node's HTTP client
// spent two to three times a TCP unit's CPU on a report; on the wire the requests are what a
// phone's HTTP client sends. A report that went out as the tracker closed the idle connection is
// sent again once on a new one (its time counted from the first attempt), as an HTTP client does.
import { connect, type Socket } from 'node:net';

export interface Phone {
  /** POSTs `path` (with its query); `answered` gets the answer's status (0: none came) and when the report was first sent. */
  send(path: string): void;
  close(): void;
}

interface Sent {
  at: bigint;
  request: string;
  retried: boolean;
}

/** Where the answer starting `buf` ends (headers end at `headEnd`; the tracker gives every answer its length), or -1 while it is incomplete. */
function answerEnd(buf: string, headEnd: number): number {
  const body = headEnd + 4;
  const length = /\r\ncontent-length: *(\d+)/.exec(buf.slice(0, headEnd).toLowerCase());
  const end = body + (length ? Number(length[1]) : 0);
  return buf.length >= end ? end : -1;
}

export function openPhone(port: number, answered: (status: number, sentAt: bigint) => void): Phone {
  let socket: Socket | null = null;
  let waiting: Sent[] = [];
  let buf = '';
  let closed = false;

  const read = (chunk: string) => {
    buf += chunk;
    for (let headEnd = buf.indexOf('\r\n\r\n'); headEnd >= 0; headEnd = buf.indexOf('\r\n\r\n')) {
      const end = answerEnd(buf, headEnd);
      if (end < 0) return;
      const status = Number(buf.slice(9, 12));
      buf = buf.slice(end);
      const sent = waiting.shift();
      if (sent) answered(status, sent.at);
    }
  };
  const open = (): Socket => {
    const s = connect(port, '127.0.0.1');
    s.setEncoding('latin1');
    s.on('data', read);
    s.on('error', () => undefined);
    s.once('close', () => {
      socket = null;
      buf = '';
      const unanswered = waiting;
      waiting = [];
      // Closed by the benchmark (its fleet disconnects): the reports went out, their answers are not awaited.
      if (closed) return;
      for (const sent of unanswered) {
        if (!sent.retried) write({ ...sent, retried: true });
        else answered(0, sent.at);
      }
    });
    return s;
  };
  const write = (sent: Sent) => {
    waiting.push(sent);
    (socket ??= open()).write(sent.request);
  };
  return {
    send: (path) => write({ at: process.hrtime.bigint(), request: `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n`, retried: false }),
    close() {
      closed = true;
      socket?.destroy();
    },
  };
}
