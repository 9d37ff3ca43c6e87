// HTTP/1.1 to Monext's API over kept-alive connections, written for the one use the connector has: a request in one
// write, its whole answer (Content-Length or chunked; read until the close otherwise) as text. node:http's client
// costs more CPU per call than the rest of a live payment's work for it in Motu (a ClientRequest, an IncomingMessage
// stream, the agent's events and its parser's callbacks for each call); here a call is a string written and the
// answer's bytes parsed as they come (docs/performance.md, "The Monext path"). The bytes sent are node:http's for the
// same request: the same headers, in the same order.
import net from 'node:net';
import tls from 'node:tls';

export interface HttpTarget {
  secure: boolean;
  host: string;
  port: number;
}

export interface HttpAnswer {
  status: number;
  text: string;
}

/** No complete answer: why, in a few words (the connection refused or lost, the answer cut off or unreadable). */
export class HttpFailure extends Error {}

/**
 * Connections are closed by Motu once idle for IDLE_MS, or a second before the server said it would close them (its
 * `Keep-Alive: timeout=N`): a connection the server closes for idleness could otherwise be picked for the next call
 * while its close was on the way, and that call fail (a 503, the outcome then read back from Monext) although Monext
 * was there.
 */
const IDLE_MS = 4_000;
const MAX_CONNECTIONS = 64;
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_ANSWER_BYTES = 1024 * 1024;
const EMPTY = Buffer.alloc(0);

/** The kept-alive connections to one origin: the most recently used first, at most MAX_CONNECTIONS, calls queued beyond. */
export class HttpPool {
  private readonly idle: Connection[] = [];
  private readonly queued: ((connection: Connection) => void)[] = [];
  private open = 0;
  private tlsSession: Buffer | undefined;
  /** The Host header, as node:http writes it: the port only when not the scheme's default. */
  readonly hostHeader: string;

  constructor(private readonly target: HttpTarget) {
    const host = target.host.includes(':') ? `[${target.host}]` : target.host;
    this.hostHeader = target.port === (target.secure ? 443 : 80) ? host : `${host}:${target.port}`;
  }

  /** Sends `request` (the request line, the headers and the body, whole) and resolves with the answer; HttpFailure otherwise. */
  send(request: string, timeoutMs: number): Promise<HttpAnswer> {
    return new Promise((resolve, reject) => {
      let connection: Connection | undefined;
      const start = (taken: Connection) => {
        connection = taken;
        taken.call(request, (answer) => {
          clearTimeout(timer);
          resolve(answer);
        }, (error) => {
          clearTimeout(timer);
          reject(error);
        });
      };
      const timer = setTimeout(() => {
        const reason = `no answer within ${timeoutMs} ms`;
        if (connection) return connection.fail(reason);
        this.queued.splice(this.queued.indexOf(start), 1);
        reject(new HttpFailure(reason));
      }, timeoutMs);
      const taken = this.take();
      if (taken) start(taken);
      else this.queued.push(start);
    });
  }

  private take(): Connection | undefined {
    // A connection the server ended stays listed until its close event: never picked meanwhile.
    for (let idle = this.idle.pop(); idle; idle = this.idle.pop()) if (idle.usable()) return idle;
    if (this.open >= MAX_CONNECTIONS) return undefined;
    this.open += 1;
    return new Connection(this.connect(), this);
  }

  private connect(): net.Socket {
    const { secure, host, port } = this.target;
    // TLS sessions are resumed (the last one the server gave), as node:https's agent does.
    const socket = secure ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, session: this.tlsSession }) : net.connect({ host, port });
    if (secure) socket.on('session', (session: Buffer) => { this.tlsSession = session; });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000); // TCP keep-alive probes on kept connections, as node:http's agent sets them
    return socket;
  }

  /** A connection whose call is over: kept for the next call, or closed. */
  release(connection: Connection, reusable: boolean): void {
    if (!reusable) return connection.close();
    const next = this.queued.shift();
    if (next) return next(connection);
    connection.idleFor();
    this.idle.push(connection);
  }

  /** A connection closed (by either side): a queued call gets a new one. */
  closed(connection: Connection): void {
    this.open -= 1;
    const at = this.idle.indexOf(connection);
    if (at >= 0) this.idle.splice(at, 1);
    const next = this.queued.length > 0 ? this.take() : undefined;
    if (next) this.queued.shift()!(next);
  }
}

class Connection {
  private answer: Answer | null = null;
  private settle: ((error: HttpFailure | null, answer?: HttpAnswer) => void) | null = null;
  private idleTimer: NodeJS.Timeout | undefined;
  private idleMs = IDLE_MS;
  private gone = false;

  constructor(private readonly socket: net.Socket, private readonly pool: HttpPool) {
    socket.on('data', (data: Buffer) => this.received(data));
    socket.on('end', () => this.ended());
    socket.on('error', () => this.fail(this.answer?.started ? 'the answer was cut off' : 'unreachable'));
    socket.on('close', () => {
      if (!this.gone) {
        this.gone = true;
        clearTimeout(this.idleTimer);
        this.pool.closed(this);
      }
      this.fail(this.answer?.started ? 'the answer was cut off' : 'unreachable');
    });
  }

  call(request: string, resolve: (answer: HttpAnswer) => void, reject: (error: HttpFailure) => void): void {
    clearTimeout(this.idleTimer);
    this.socket.ref();
    this.answer = new Answer();
    this.settle = (error, answer) => (error ? reject(error) : resolve(answer!));
    this.socket.write(request);
  }

  /** Ends the call under way, if any, with this reason; the connection is closed (what it would carry next is unknown). */
  fail(reason: string): void {
    const settle = this.settle;
    if (!settle) return;
    this.settle = null;
    this.answer = null;
    this.close();
    settle(new HttpFailure(reason));
  }

  close(): void {
    this.socket.destroy();
  }

  usable(): boolean {
    return this.socket.writable && !this.gone;
  }

  /** Kept for the next call: an idle connection (and its timer) does not keep the process alive, as node:http's agent's does not. */
  idleFor(): void {
    this.socket.unref();
    this.idleTimer = setTimeout(() => this.close(), this.idleMs).unref();
  }

  private received(data: Buffer): void {
    const answer = this.answer;
    if (!answer || !this.settle) return this.close(); // bytes nobody asked for: the connection cannot be trusted
    let done: boolean;
    try {
      done = answer.push(data);
    } catch (err) {
      return this.fail((err as Error).message);
    }
    if (done) this.finish(answer);
  }

  private ended(): void {
    // The server closed its side: an answer framed by the close is whole; any other is cut off.
    if (this.answer?.framing === 'close' && this.settle) return this.finish(this.answer);
    this.fail(this.answer?.started ? 'the answer was cut off' : 'unreachable');
  }

  private finish(answer: Answer): void {
    const settle = this.settle!;
    this.settle = null;
    this.answer = null;
    if (answer.keepAliveSeconds !== undefined) this.idleMs = Math.min(IDLE_MS, Math.max(0, answer.keepAliveSeconds * 1000 - 1000));
    const reusable = answer.keepAlive && answer.framing !== 'close' && !answer.extra && this.idleMs > 0 && !this.gone;
    this.pool.release(this, reusable);
    settle(null, { status: answer.status, text: answer.text() });
  }
}

/** One answer, parsed as its bytes come: the status line and headers, then the body as they frame it. */
class Answer {
  status = 0;
  framing: 'length' | 'chunked' | 'close' | null = null;
  keepAlive = true;
  keepAliveSeconds: number | undefined;
  /** Bytes came after the answer's end (nothing was asked for them). */
  extra = false;
  started = false;
  private pending: Buffer = EMPTY;
  private remaining = 0;
  private chunk: 'size' | 'data' | 'crlf' | 'trailer' = 'size';
  private readonly body: Buffer[] = [];
  private size = 0;

  text(): string {
    return (this.body.length === 1 ? this.body[0]! : Buffer.concat(this.body, this.size)).toString('utf8');
  }

  /** Takes the next bytes; true once the answer is whole. Throws an Error whose message says what is wrong. */
  push(data: Buffer): boolean {
    this.started = true;
    this.pending = this.pending.length === 0 ? data : Buffer.concat([this.pending, data]);
    for (;;) {
      if (this.framing === null) {
        const end = this.pending.indexOf('\r\n\r\n');
        if (end < 0) {
          if (this.pending.length > MAX_HEAD_BYTES) throw new Error('an answer whose headers never end');
          return false;
        }
        const head = this.pending.toString('latin1', 0, end);
        this.pending = this.pending.subarray(end + 4);
        if (this.head(head)) continue; // an informational answer (1xx): the real one follows
        if (this.framing === 'length' && this.remaining === 0) return this.done();
        continue;
      }
      if (this.framing === 'close') {
        this.take(this.pending.length);
        return false;
      }
      if (this.framing === 'length') {
        this.take(Math.min(this.remaining, this.pending.length));
        return this.remaining === 0 ? this.done() : false;
      }
      if (this.chunk === 'data') {
        this.take(Math.min(this.remaining, this.pending.length));
        if (this.remaining > 0) return false;
        this.chunk = 'crlf';
        continue;
      }
      if (this.chunk === 'crlf') {
        if (this.pending.length < 2) return false;
        if (this.pending[0] !== 13 || this.pending[1] !== 10) throw new Error('a chunked answer that cannot be read');
        this.pending = this.pending.subarray(2);
        this.chunk = 'size';
        continue;
      }
      const eol = this.pending.indexOf('\r\n');
      if (eol < 0) {
        if (this.pending.length > MAX_HEAD_BYTES) throw new Error('a chunked answer that cannot be read');
        return false;
      }
      const line = this.pending.toString('latin1', 0, eol);
      this.pending = this.pending.subarray(eol + 2);
      if (this.chunk === 'trailer') {
        if (line === '') return this.done();
        continue;
      }
      const size = /^([0-9a-fA-F]{1,8})[ \t]*(;.*)?$/.exec(line);
      if (!size) throw new Error('a chunked answer that cannot be read');
      this.remaining = parseInt(size[1]!, 16);
      this.chunk = this.remaining === 0 ? 'trailer' : 'data';
      if (this.size + this.remaining > MAX_ANSWER_BYTES) throw new Error('an answer larger than 1 MB');
    }
  }

  /** Reads the status line and headers; true for an informational answer (1xx), whose headers are dropped. */
  private head(head: string): boolean {
    const lines = head.split('\r\n');
    const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
    if (!status) throw new Error('an answer that is not HTTP/1.1');
    this.status = Number(status[2]);
    if (this.status < 200) return true;
    this.keepAlive = status[1] === '1';
    let length: number | undefined;
    let chunked = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      if (colon <= 0) throw new Error('an answer with a header that cannot be read');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      if (name === 'content-length') {
        if (!/^\d{1,9}$/.test(value) || (length !== undefined && length !== Number(value))) throw new Error('an answer with an unreadable length');
        length = Number(value);
      } else if (name === 'transfer-encoding') {
        chunked = /(^|,)\s*chunked\s*$/i.test(value);
        if (!chunked) throw new Error('an answer in an encoding not asked for');
      } else if (name === 'connection') {
        if (/(^|,)\s*close\s*(,|$)/i.test(value)) this.keepAlive = false;
        else if (/(^|,)\s*keep-alive\s*(,|$)/i.test(value)) this.keepAlive = true;
      } else if (name === 'keep-alive') {
        const timeout = /(?:^|,)\s*timeout=(\d+)/i.exec(value);
        if (timeout) this.keepAliveSeconds = Number(timeout[1]);
      }
    }
    if (this.status === 204 || this.status === 304) this.framing = 'length';
    else if (chunked) this.framing = 'chunked';
    else if (length !== undefined) {
      if (length > MAX_ANSWER_BYTES) throw new Error('an answer larger than 1 MB');
      this.framing = 'length';
      this.remaining = length;
    } else {
      this.framing = 'close';
      this.keepAlive = false;
    }
    return false;
  }

  private take(n: number): void {
    if (n === 0) return;
    this.body.push(this.pending.subarray(0, n));
    this.size += n;
    if (this.size > MAX_ANSWER_BYTES) throw new Error('an answer larger than 1 MB');
    this.pending = this.pending.subarray(n);
    if (this.framing !== 'close') this.remaining -= n;
  }

  private done(): true {
    if (this.pending.length > 0) this.extra = true;
    return true;
  }
}
