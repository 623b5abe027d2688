// Owns the service's webhook POSTs on the wire: HTTP/1.1 over connections kept per origin
// (plain or TLS), one request at a time on each, and the answer read as far as its verdict
// needs. Webhook attempts need little of a general HTTP client (no redirects, no request
// streams, the answer's body thrown away), and on the path from SMTP to a waiting test one
// written by hand left ~0.2 ms sooner after a pause than undici's dispatch here (which also
// waits a turn of the event loop before it reuses a kept connection).
import { isIP, connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';

/** Where a request goes: an `http:` or `https:` origin and the path with its query. */
export interface Http1Target {
  protocol: 'http:' | 'https:';
  hostname: string;
  port: number;
  /** The Host header: the host, with the port when it is not the protocol's own. */
  host: string;
  path: string;
}

export interface Http1ClientOptions {
  /** Resolves host names for new connections (the SSRF guard); Node's own lookup when absent. */
  lookup?: LookupFunction | undefined;
  /** How long a kept connection may sit unused before it is closed (ms). */
  keepAliveMs: number;
  /** What TLS connections add to Node's defaults (tests give their own CA). */
  tls?: ConnectionOptions;
}

/** Largest header block of an answer. */
const MAX_HEADER_BYTES = 64 * 1024;

/** How a connection or an answer failed, with a `code` the attempt's log puts into words. */
export class Http1Error extends Error {
  constructor(readonly code: 'MW_ERR_HTTP_CLOSED' | 'MW_ERR_HTTP_BAD_ANSWER' | 'MW_ERR_HTTP_CLIENT_CLOSED', message: string) {
    super(message);
    this.name = 'Http1Error';
  }
}

/** One answer's status line and the headers that frame its body. */
interface Head {
  status: number;
  keepAlive: boolean;
  /** Bytes of body that follow, `chunked`, or `close` (the body ends with the connection). */
  body: number | 'chunked' | 'close';
}

/** Reads a header block (without its blank line) into what framing needs; a string says why it is not HTTP/1.x. */
function readHead(block: string): Head | string {
  const lines = block.split('\r\n');
  const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(lines[0]!);
  if (!status) return `the answer does not start with an HTTP/1.x status line (${JSON.stringify(lines[0]!.slice(0, 40))})`;
  let keepAlive = status[1] === '1';
  let length: number | null = null;
  /** The transfer codings named, the last one first (null: none). */
  let coding: string | null = null;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!;
    const colon = line.indexOf(':');
    if (colon <= 0) return `a header line of the answer has no name (${JSON.stringify(line.slice(0, 40))})`;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim().toLowerCase();
    if (name === 'content-length') {
      if (!/^\d{1,15}$/.test(value) || (length !== null && length !== Number(value))) return `the answer's content-length ${JSON.stringify(value)} is not one number`;
      length = Number(value);
    } else if (name === 'transfer-encoding') coding = value.split(',').map((v) => v.trim()).at(-1) ?? '';
    else if (name === 'connection') {
      const tokens = value.split(',').map((v) => v.trim());
      if (tokens.includes('close')) keepAlive = false;
      else if (tokens.includes('keep-alive')) keepAlive = true;
    }
  }
  const code = Number(status[2]);
  const empty = code === 204 || code === 304 || (code >= 100 && code < 200);
  if (empty) return { status: code, keepAlive, body: 0 };
  if (coding === 'chunked') return { status: code, keepAlive, body: 'chunked' };
  // A coding other than chunked last: the body ends with the connection, whatever its length says (RFC 9112 6.3).
  if (coding !== null) return { status: code, keepAlive: false, body: 'close' };
  return { status: code, keepAlive, body: length ?? 'close' };
}

/**
 * Follows a chunked body through the bytes given to it; `feed` answers how many of them
 * belong to the body (the rest, if any, follow it) once its last chunk and trailer are in,
 * else -1 (it took them all and wants more). `seen` counts the body's data bytes.
 */
class ChunkedBody {
  #state: 'size' | 'data' | 'data-end' | 'trailer' = 'size';
  #line = '';
  #left = 0;
  seen = 0;

  feed(bytes: Buffer): number {
    let i = 0;
    while (i < bytes.length) {
      if (this.#state === 'data') {
        const take = Math.min(this.#left, bytes.length - i);
        this.#left -= take;
        this.seen += take;
        i += take;
        if (this.#left === 0) this.#state = 'data-end';
        continue;
      }
      const newline = bytes.indexOf(10, i);
      const end = newline < 0 ? bytes.length : newline + 1;
      this.#line += bytes.toString('latin1', i, end);
      i = end;
      if (newline < 0) {
        if (this.#line.length > MAX_HEADER_BYTES) throw new Http1Error('MW_ERR_HTTP_BAD_ANSWER', 'a chunk line of the answer passed 64 KiB');
        break;
      }
      const line = this.#line.trimEnd();
      this.#line = '';
      if (this.#state === 'size') {
        const size = /^([0-9a-fA-F]{1,12})(?:;.*)?$/.exec(line);
        if (!size) throw new Http1Error('MW_ERR_HTTP_BAD_ANSWER', `a chunk size of the answer is not hexadecimal (${JSON.stringify(line.slice(0, 20))})`);
        this.#left = Number.parseInt(size[1]!, 16);
        this.#state = this.#left === 0 ? 'trailer' : 'data';
      } else if (this.#state === 'data-end') {
        if (line !== '') throw new Http1Error('MW_ERR_HTTP_BAD_ANSWER', 'a chunk of the answer is longer than its size');
        this.#state = 'size';
      } else if (line === '') {
        return i; // the blank line after the trailer ends the body
      }
    }
    return -1;
  }
}

/** HTTP/1.1 POSTs over kept connections (see the file comment). Close it when done; `await using` works. */
export class Http1Client implements AsyncDisposable {
  readonly #idle = new Map<string, KeptSocket[]>();
  readonly #busy = new Set<Socket>();
  #closed = false;

  constructor(private readonly options: Http1ClientOptions) {}

  /**
   * POSTs `body` with `headers` (lower-case names; no content-length) and resolves the answer's
   * status once its body has ended, or once `maxBody` bytes of it have come (the status is
   * then the verdict and the connection is not kept). Rejects with what the connection
   * reports (`code` ECONNREFUSED, ECONNRESET, a TLS code…), an {@link Http1Error}, or the
   * signal's reason. A kept connection that fails before any answer is tried again once on a
   * new one (the receiver may have closed it meanwhile). The receiver may then get the POST
   * twice, as it may from any retry of the delivery's schedule: deliveries are at least once,
   * and webhook-id lets receivers drop repeats.
   */
  async post(target: Http1Target, headers: Record<string, string>, body: string, options: { signal: AbortSignal; maxBody: number }): Promise<number> {
    const key = `${target.protocol}//${target.host}`;
    let head = `POST ${target.path} HTTP/1.1\r\nhost: ${target.host}\r\n`;
    for (const name in headers) head += `${name}: ${headers[name]}\r\n`;
    const request = `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    options.signal.throwIfAborted();
    const kept = this.#take(key);
    if (kept) {
      try {
        return await this.#exchange(kept, key, request, options);
      } catch (error) {
        if (!(error instanceof UnansweredError)) throw error;
      }
    }
    try {
      return await this.#exchange(this.#connect(target), key, request, options);
    } catch (error) {
      throw error instanceof UnansweredError ? error.cause : error;
    }
  }

  /** Closes the kept connections and any under way; later posts fail. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const kept of this.#idle.values()) for (const { socket } of kept) socket.destroy();
    this.#idle.clear();
    for (const socket of this.#busy) socket.destroy();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #take(key: string): Socket | undefined {
    const kept = this.#idle.get(key);
    const entry = kept?.pop();
    if (kept?.length === 0) this.#idle.delete(key);
    entry?.detach();
    return entry?.socket;
  }

  #connect(target: Http1Target): Socket {
    if (this.#closed) throw new Http1Error('MW_ERR_HTTP_CLIENT_CLOSED', 'the webhook client is closed');
    const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
    const lookup = this.options.lookup ? { lookup: this.options.lookup } : {};
    const socket = target.protocol === 'https:'
      ? tlsConnect({ ...this.options.tls, host, port: target.port, ...lookup, ...(isIP(host) ? {} : { servername: host }), ALPNProtocols: ['http/1.1'] })
      : netConnect({ host, port: target.port, ...lookup });
    socket.setNoDelay(true);
    // Errors are taken by the exchange under way, or end a kept connection; none may go unheard.
    socket.on('error', () => {});
    return socket;
  }

  /** Writes `request` on `socket` and reads the answer (see {@link post}); puts the socket back when it can be kept. */
  #exchange(socket: Socket, key: string, request: string, options: { signal: AbortSignal; maxBody: number }): Promise<number> {
    const { signal, maxBody } = options;
    this.#busy.add(socket);
    socket.setTimeout(0);
    socket.ref();
    return new Promise<number>((resolve, reject) => {
      let received = 0;
      let pending: Buffer = Buffer.alloc(0);
      let head: Head | null = null;
      let chunked: ChunkedBody | null = null;
      let bodyBytes = 0;
      let settled = false;
      const finish = (outcome: { status: number; keep: boolean } | { error: Error }) => {
        if (settled) return;
        settled = true;
        socket.off('data', onData);
        socket.off('error', onError);
        socket.off('close', onClose);
        signal.removeEventListener('abort', onAbort);
        this.#busy.delete(socket);
        if ('error' in outcome) {
          socket.destroy();
          reject(outcome.error);
          return;
        }
        if (outcome.keep && !this.#closed) this.#keep(key, socket);
        else socket.destroy();
        resolve(outcome.status);
      };
      const onData = (data: Buffer) => {
        received += data.length;
        try {
          let bytes: Buffer = pending.length === 0 ? data : Buffer.concat([pending, data]);
          pending = Buffer.alloc(0);
          while (!head) {
            // Blank lines before a status line are passed over (RFC 9112 2.2).
            let start = 0;
            while (bytes[start] === 13 || bytes[start] === 10) start++;
            if (start > 0) bytes = bytes.subarray(start);
            const end = bytes.indexOf('\r\n\r\n');
            if (end < 0) {
              if (bytes.length > MAX_HEADER_BYTES) throw new Http1Error('MW_ERR_HTTP_BAD_ANSWER', "the answer's headers passed 64 KiB");
              pending = bytes;
              return;
            }
            const read = readHead(bytes.toString('latin1', 0, end));
            if (typeof read === 'string') throw new Http1Error('MW_ERR_HTTP_BAD_ANSWER', read);
            bytes = bytes.subarray(end + 4);
            // An interim answer (100 Continue, 103 Early Hints) is followed by the real one.
            if (read.status >= 100 && read.status < 200) continue;
            head = read;
          }
          if (head.body === 'chunked') {
            const used = (chunked ??= new ChunkedBody()).feed(bytes);
            if (used >= 0) return finish({ status: head.status, keep: head.keepAlive && used === bytes.length });
            if (chunked.seen > maxBody) return finish({ status: head.status, keep: false });
            return;
          }
          bodyBytes += bytes.length;
          const length = head.body;
          if (length === 'close') {
            if (bodyBytes > maxBody) finish({ status: head.status, keep: false });
            return;
          }
          if (length > maxBody) return finish({ status: head.status, keep: false });
          if (bodyBytes >= length) finish({ status: head.status, keep: head.keepAlive && bodyBytes === length });
        } catch (error) {
          finish({ error: error as Error });
        }
      };
      const onError = (error: Error) => finish({ error: received === 0 ? new UnansweredError(error) : error });
      const onClose = () => {
        // A body that ends with the connection has ended.
        if (head?.body === 'close') return finish({ status: head.status, keep: false });
        if (this.#closed) return finish({ error: new Http1Error('MW_ERR_HTTP_CLIENT_CLOSED', 'the webhook client was closed before the answer came') });
        const error = new Http1Error('MW_ERR_HTTP_CLOSED', received === 0 ? 'the receiver closed the connection without answering' : 'the receiver closed the connection before its answer ended');
        finish({ error: received === 0 ? new UnansweredError(error) : error });
      };
      const onAbort = () => finish({ error: signal.reason instanceof Error ? signal.reason : new Error('aborted') });
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      socket.on('data', onData);
      socket.on('error', onError);
      socket.on('close', onClose);
      socket.write(request);
    });
  }

  /** Keeps an answered connection for the next request to its origin, until it closes or sits unused too long. */
  #keep(key: string, socket: Socket): void {
    let kept = this.#idle.get(key);
    if (!kept) this.#idle.set(key, (kept = []));
    const list = kept;
    const entry: KeptSocket = {
      socket,
      detach: () => {
        for (const event of IDLE_ENDS) socket.off(event, drop);
        socket.setTimeout(0);
      },
    };
    // Anything from an unused connection (its end, stray bytes, an error, its time up) ends it.
    const drop = () => {
      entry.detach();
      const at = list.indexOf(entry);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0 && this.#idle.get(key) === list) this.#idle.delete(key);
      socket.destroy();
    };
    for (const event of IDLE_ENDS) socket.on(event, drop);
    socket.unref();
    socket.setTimeout(this.options.keepAliveMs);
    list.push(entry);
  }
}

/** What ends a kept connection that sits unused. */
const IDLE_ENDS = ['timeout', 'close', 'end', 'data', 'error'] as const;

/** A kept connection and how to take it out of keeping. */
interface KeptSocket {
  socket: Socket;
  detach(): void;
}

/** A kept connection that failed before any byte of an answer: the request may be sent again on a new one. */
class UnansweredError extends Error {
  constructor(override readonly cause: Error) {
    super(cause.message);
  }
}
