// HTTP/1.1 (RFC 9112) for device reports, read and written straight on the connection. A phone's
// report is one small request, its fields in the query or a short body, answered with a short text;
// Node's HTTP server made a request and a response object per report, with their streams, events
// and header handling, and a phone's report cost the tracker more than any TCP unit's (decisions,
// "Ingest: the phones' requests read off the connection"). What reports need is here: any method
// (the handler refuses what it does not take), a body by Content-Length or chunked, Expect:
// 100-continue, keep-alive, pipelined requests handled together and answered in order, HTTP/1.0.
// Anything malformed is answered with its status and the connection closed: a head over 16 KiB
// (431), a body over 64 KiB (413), a transfer coding other than chunked (501), a request not whole
// in time after its first byte (408), the rest 400.
import type { Socket } from 'node:net';

/** A whole request, its body read. */
export interface HttpRequest {
  method: string;
  target: string;
  /** By lower-cased name; a repeated field's values joined by ", ". */
  headers: Record<string, string>;
  body: string;
}

export interface HttpAnswer {
  status: number;
  text: string;
  /** Seconds, for a 429. */
  retryAfter?: number;
}

export interface HttpOptions {
  /** How long a connection stays open after an answer, waiting for its next request. */
  keepAliveMs: number;
  /** From a request's first byte until it is whole. */
  requestTimeoutMs: number;
  /** The connection's first request is whole (the port's login deadline ends then). */
  onFirst: () => void;
  /** The handler failed: the request is answered 503. */
  onError: (err: unknown) => void;
}

/** One connection's side of a graceful stop. */
export interface HttpConnection {
  /** Answers the request it is handling with `Connection: close` and ends then; ends at once when idle. */
  closeWhenIdle(): void;
}

const MAX_HEAD = 16 * 1024;
const MAX_BODY = 64 * 1024;
/** How long a connection that was answered and ended waits for the client's FIN. */
const END_LINGER_MS = 1000;

const REASONS: Record<number, string> = {
  200: 'OK',
  400: 'Bad Request',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  413: 'Content Too Large',
  417: 'Expectation Failed',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([\x21-\x7e\x80-\xff]+) HTTP\/1\.([01])$/;
/** Control characters a field value must not hold (HTAB is allowed). */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
const CHUNK_SIZE = /^([0-9A-Fa-f]{1,8})[ \t]*(?:;.*)?$/;
const CONTINUE = Buffer.from('HTTP/1.1 100 Continue\r\n\r\n', 'latin1');

/** What a malformed request gets before its connection is closed. */
class Refusal {
  constructor(
    readonly status: number,
    readonly text: string,
  ) {}
}

let dateSecond = NaN;
let dateText = '';
/** The Date field's value, made once a second. */
function httpDate(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

/** An answer's bytes: a text with its length (a phone's minimal HTTP client reads it by its length), as one write. */
function answerText(answer: HttpAnswer, connection: 'close' | 'keep-alive' | null, withBody: boolean): string {
  const retryAfter = answer.retryAfter !== undefined ? `retry-after: ${answer.retryAfter}\r\n` : '';
  return (
    `HTTP/1.1 ${answer.status} ${REASONS[answer.status] ?? 'Unknown'}\r\ndate: ${httpDate()}\r\n` +
    `content-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(answer.text)}\r\n` +
    `${retryAfter}${connection ? `connection: ${connection}\r\n` : ''}\r\n${withBody ? answer.text : ''}`
  );
}

/** A request's head: what it asks for and how its body is framed. */
interface Head {
  method: string;
  target: string;
  headers: Record<string, string>;
  /** Bytes of the head, its closing empty line included. */
  length: number;
  /** The body's length, or chunked. */
  body: number | 'chunked';
  keepAlive: boolean;
  http10: boolean;
  expectsContinue: boolean;
}

/** The head in buf[0, end), end being where its closing CRLF CRLF starts. */
function parseHead(buf: Buffer, end: number): Head {
  const lines = buf.toString('latin1', 0, end).split('\r\n');
  const line = REQUEST_LINE.exec(lines[0]!);
  if (!line) throw new Refusal(400, 'malformed request line');
  // No prototype: a field named like an Object property (constructor, __proto__) is a field like any other.
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 1; i < lines.length; i++) {
    const field = lines[i]!;
    const colon = field.indexOf(':');
    // A name of token characters right before its colon: no space there, no line folded onto the
    // one before it (RFC 9112, 5.1 and 5.2).
    if (colon <= 0 || !TOKEN.test(field.slice(0, colon))) throw new Refusal(400, 'malformed header field');
    const value = field.slice(colon + 1).trim();
    if (CONTROL.test(value)) throw new Refusal(400, 'malformed header field');
    const name = field.slice(0, colon).toLowerCase();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  const http10 = line[3] === '0';
  const connection = (headers.connection ?? '').toLowerCase();
  const coding = headers['transfer-encoding'];
  const declared = headers['content-length'];
  let body: Head['body'] = 0;
  if (coding !== undefined) {
    // Both framings at once is how requests are smuggled past intermediaries (RFC 9112, 6.1).
    if (declared !== undefined || http10) throw new Refusal(400, 'ambiguous message framing');
    if (coding.toLowerCase() !== 'chunked') throw new Refusal(501, 'transfer coding not supported');
    body = 'chunked';
  } else if (declared !== undefined) {
    if (!/^\d{1,15}$/.test(declared)) throw new Refusal(400, 'malformed content-length');
    body = Number(declared);
    if (body > MAX_BODY) throw new Refusal(413, 'report too large');
  }
  const expect = headers.expect?.toLowerCase();
  if (expect !== undefined && expect !== '100-continue') throw new Refusal(417, 'expectation not supported');
  return {
    method: line[1]!,
    target: line[2]!,
    headers,
    length: end + 4,
    body,
    keepAlive: http10 ? /\bkeep-alive\b/.test(connection) : !/\bclose\b/.test(connection),
    http10,
    expectsContinue: expect !== undefined && !http10 && body !== 0,
  };
}

/** A chunked body read as its bytes come (RFC 9112, 7.1). */
class ChunkedBody {
  private readonly parts: Buffer[] = [];
  private size = 0;
  private state: 'size' | 'data' | 'data end' | 'trailer' = 'size';
  /** Data bytes left in the chunk being read. */
  private left = 0;

  /** `at`: offset in the connection's buffer of what is not read yet. */
  constructor(public at: number) {}

  /** Reads on in `buf`: the body once it is whole (`at` then just past it), else null. */
  read(buf: Buffer): Buffer | null {
    for (;;) {
      if (this.state === 'data') {
        const take = Math.min(this.left, buf.length - this.at);
        this.parts.push(buf.subarray(this.at, this.at + take));
        this.at += take;
        this.left -= take;
        if (this.left > 0) return null;
        this.state = 'data end';
      }
      const eol = buf.indexOf('\r\n', this.at, 'latin1');
      if (eol < 0) {
        if (buf.length - this.at > MAX_HEAD) throw new Refusal(400, 'malformed chunked body');
        return null;
      }
      const line = buf.toString('latin1', this.at, eol);
      this.at = eol + 2;
      if (this.state === 'data end') {
        if (line !== '') throw new Refusal(400, 'malformed chunked body');
        this.state = 'size';
      } else if (this.state === 'trailer') {
        // Trailer fields carry nothing a report reads.
        if (line === '') return Buffer.concat(this.parts, this.size);
        if (CONTROL.test(line)) throw new Refusal(400, 'malformed chunked body');
      } else {
        const size = CHUNK_SIZE.exec(line);
        if (!size) throw new Refusal(400, 'malformed chunked body');
        this.left = parseInt(size[1]!, 16);
        this.size += this.left;
        if (this.size > MAX_BODY) throw new Refusal(413, 'report too large');
        this.state = this.left === 0 ? 'trailer' : 'data';
      }
    }
  }
}

/**
 * Requests of one connection handled together, as a TCP unit's waiting frames are (they go into one
 * batch): a phone that sent several before hearing back waits for one commit, not one per request.
 */
const MAX_IN_FLIGHT = 64;

/** A request being handled, and its answer once there. */
interface InFlight {
  answer: HttpAnswer | null;
  http10: boolean;
  /** Not a HEAD request: its answer carries its text. */
  withBody: boolean;
}

/**
 * Serves requests on `socket` until either side closes: pipelined ones are handled together, up to
 * MAX_IN_FLIGHT, and answered in the order they came.
 */
export function serveHttp(socket: Socket, handle: (request: HttpRequest) => Promise<HttpAnswer>, options: HttpOptions): HttpConnection {
  let buf: Buffer = Buffer.alloc(0);
  /** The head of the request being read, once whole. */
  let head: Head | null = null;
  let chunked: ChunkedBody | null = null;
  /** A request's first byte came and it is not whole yet. */
  let reading = false;
  const inFlight: InFlight[] = [];
  /** The client is not reading its answers: nothing more is taken until they drain. */
  let draining = false;
  /** No request is taken after the last one taken: it closes the connection, or was refused. */
  let last = false;
  /** A graceful stop: the connection ends with the answer that leaves nothing in flight. */
  let stopping = false;
  /** Ended: nothing more is read. */
  let closing = false;
  let first = true;
  let timer: NodeJS.Timeout | undefined;
  const wait = (ms: number, then: () => void) => {
    clearTimeout(timer);
    timer = setTimeout(then, ms);
  };
  const end = (text?: string) => {
    closing = true;
    clearTimeout(timer);
    if (text === undefined) socket.end();
    else socket.end(text);
    setTimeout(() => socket.destroy(), END_LINGER_MS).unref();
  };

  socket.setNoDelay(true);
  socket.on('error', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
  socket.on('drain', () => {
    draining = false;
    if (socket.isPaused()) socket.resume();
    next();
  });
  socket.on('data', (chunk: Buffer) => {
    if (closing) return;
    buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
    // What comes while no more can be taken waits, up to about a request's worth.
    if (buf.length > MAX_HEAD + MAX_BODY) socket.pause();
    next();
  });

  /** Takes and starts every whole request it may. */
  function next(): void {
    while (!closing && !last && !draining && inFlight.length < MAX_IN_FLIGHT && !socket.destroyed) {
      let request: (HttpRequest & { head: Head }) | null;
      try {
        request = take();
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        return refuse(err.status, err.text);
      }
      if (!request) return;
      start(request);
    }
  }

  /** Answers the request being read with `status` after those before it, which were whole, and ends. */
  function refuse(status: number, text: string): void {
    last = true;
    reading = false;
    clearTimeout(timer);
    inFlight.push({ answer: { status, text }, http10: false, withBody: true });
    flush();
  }

  function start(request: HttpRequest & { head: Head }): void {
    clearTimeout(timer);
    if (first) {
      first = false;
      options.onFirst();
    }
    if (!request.head.keepAlive) last = true;
    const entry: InFlight = { answer: null, http10: request.head.http10, withBody: request.head.method !== 'HEAD' };
    inFlight.push(entry);
    void handle(request)
      .catch((err: unknown): HttpAnswer => {
        options.onError(err);
        return { status: 503, text: 'try again' };
      })
      .then((answer) => {
        entry.answer = answer;
        flush();
      });
  }

  /** Writes the answers that are there, in order, up to the first still being worked out. */
  function flush(): void {
    for (let done = inFlight[0]; done?.answer && !closing && !socket.destroyed; done = inFlight[0]) {
      inFlight.shift();
      const close = inFlight.length === 0 && (last || (stopping && !reading));
      const text = answerText(done.answer, close ? 'close' : done.http10 ? 'keep-alive' : null, done.withBody);
      if (close) return end(text);
      // A client that sends and does not read is not answered faster than it reads.
      if (!socket.write(text)) draining = true;
    }
    if (inFlight.length === 0 && !reading && !closing) wait(options.keepAliveMs, () => socket.destroy());
    next();
  }

  /** The next whole request off the buffer, or null while there is none. */
  function take(): (HttpRequest & { head: Head }) | null {
    if (!head) {
      // Empty lines before a request line are ignored (RFC 9112, 2.2).
      let start = 0;
      while (buf.length >= start + 2 && buf[start] === 0x0d && buf[start + 1] === 0x0a) start += 2;
      if (start > 0) buf = buf.subarray(start);
      if (buf.length === 0) return null;
      if (!reading) {
        reading = true;
        wait(options.requestTimeoutMs, () => refuse(408, 'request timeout'));
      }
      const at = buf.indexOf('\r\n\r\n', 0, 'latin1');
      if (at < 0 ? buf.length > MAX_HEAD : at + 4 > MAX_HEAD) throw new Refusal(431, 'request head too large');
      if (at < 0) return null;
      head = parseHead(buf, at);
      if (head.body === 'chunked') chunked = new ChunkedBody(head.length);
    }
    let body: Buffer | null;
    let used: number;
    if (chunked) {
      body = chunked.read(buf);
      used = chunked.at;
    } else {
      used = head.length + (head.body as number);
      body = buf.length >= used ? buf.subarray(head.length, used) : null;
    }
    if (!body) {
      if (head.expectsContinue) {
        head.expectsContinue = false;
        socket.write(CONTINUE);
      }
      return null;
    }
    const whole = head;
    head = null;
    chunked = null;
    reading = false;
    buf = buf.subarray(used);
    if (socket.isPaused() && buf.length <= MAX_HEAD + MAX_BODY) socket.resume();
    return { method: whole.method, target: whole.target, headers: whole.headers, body: body.toString('utf8'), head: whole };
  }

  return {
    closeWhenIdle() {
      stopping = true;
      if (inFlight.length === 0 && !reading && buf.length === 0) end();
    },
  };
}
