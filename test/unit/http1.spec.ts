// The service's webhook client (src/server/delivery/http1.ts) against real loopback servers:
// kept connections and when they are not kept, every way an answer's body is framed, interim
// answers, limits, a kept connection that went stale, aborts, idle expiry and TLS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { Http1Client, Http1Error, type Http1Target } from '../../src/server/delivery/http1.js';

const MAX_BODY = 64 * 1024;

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function target(port: number, protocol: Http1Target['protocol'] = 'http:'): Http1Target {
  return { protocol, hostname: '127.0.0.1', port, host: `127.0.0.1:${port}`, path: '/hook?x=1' };
}

/** An HTTP server answering with `answer`; counts the connections it was given and keeps what it received. */
async function httpServer(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const received: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }> = [];
  const sockets: Socket[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      answer(req, res, body);
    });
  });
  server.on('connection', (socket: Socket) => sockets.push(socket));
  const port = await listen(server);
  return { server, port, received, sockets, [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** A TCP server that answers each request (all bytes up to the blank line and `content-length` more) with `answers(n)` for the n-th one on its connection. */
async function rawServer(answer: (socket: Socket, request: number, connection: number) => void) {
  let connections = 0;
  const server = createNetServer((socket) => {
    const connection = ++connections;
    let buffered = '';
    let requests = 0;
    socket.on('error', () => {});
    socket.on('data', (data) => {
      buffered += data.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        answer(socket, ++requests, connection);
      }
    });
  });
  const port = await listen(server);
  return { server, port, connections: () => connections, [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const post = (client: Http1Client, to: Http1Target, options: { signal?: AbortSignal; maxBody?: number } = {}) =>
  client.post(to, { 'content-type': 'application/json', 'webhook-id': 'evt_1' }, '{"a":"é"}', { signal: options.signal ?? new AbortController().signal, maxBody: options.maxBody ?? MAX_BODY });

test('a POST carries its headers, Host and body; the connection is kept for the next one, answered by length or in chunks', async () => {
  await using server = await httpServer((req, res) => {
    if (req.url === '/hook?x=1' && server.received.length % 2 === 0) {
      res.write('first part, ');
      res.end('then the rest'); // chunked
    } else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); // content-length
  });
  await using client = new Http1Client({ keepAliveMs: 5_000 });
  expect(await post(client, target(server.port))).toBe(200);
  expect(await post(client, target(server.port))).toBe(200);
  expect(await post(client, target(server.port))).toBe(200);
  expect(server.sockets).toHaveLength(1);
  expect(server.received[0]).toMatchObject({ method: 'POST', url: '/hook?x=1', body: '{"a":"é"}' });
  expect(server.received[0]!.headers).toMatchObject({ host: `127.0.0.1:${server.port}`, 'content-type': 'application/json', 'webhook-id': 'evt_1', 'content-length': '10' });
});

test('an answer that closes its connection, or whose body ends with it (HTTP/1.0), is read to its end and the next POST connects anew', async () => {
  await using server = await rawServer((socket, _request, connection) => {
    if (connection === 1) socket.write('HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n');
    else socket.end('HTTP/1.0 500 Oops\r\ncontent-type: text/plain\r\n\r\nsomething broke');
  });
  await using client = new Http1Client({ keepAliveMs: 5_000 });
  expect(await post(client, target(server.port))).toBe(204);
  expect(await post(client, target(server.port))).toBe(500);
  expect(server.connections()).toBe(2);
});

test('interim answers are passed over; a body longer than the limit is not read: its status is the verdict and the connection goes', async () => {
  await using server = await rawServer((socket, request) => {
    if (request === 1) socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </a.css>\r\n\r\nHTTP/1.1 202 Accepted\r\ncontent-length: 2\r\n\r\nok');
    else socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${10 * MAX_BODY}\r\n\r\n${'x'.repeat(100)}`); // the rest never comes
  });
  await using client = new Http1Client({ keepAliveMs: 5_000 });
  expect(await post(client, target(server.port))).toBe(202);
  expect(await post(client, target(server.port))).toBe(200);
  expect(server.connections()).toBe(1);
  expect(await post(client, target(server.port))).toBe(202);
  expect(server.connections()).toBe(2);
});

test('what is not an HTTP/1.x answer, headers past 64 KiB and a connection closed mid-answer fail with a coded error', async () => {
  const answers = [
    (socket: Socket) => socket.write('SSH-2.0-OpenSSH\r\n\r\n'),
    (socket: Socket) => socket.write(`HTTP/1.1 200 OK\r\nx-big: ${'y'.repeat(70 * 1024)}`),
    (socket: Socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial'),
    (socket: Socket) => socket.end(),
  ];
  await using server = await rawServer((socket, _request, connection) => answers[connection - 1]!(socket));
  await using client = new Http1Client({ keepAliveMs: 5_000 });
  const errors = [];
  for (let i = 0; i < answers.length; i++) errors.push(await post(client, target(server.port)).catch((e: unknown) => e));
  expect(errors.map((e) => [(e as Http1Error).code, (e as Error).message])).toEqual([
    ['MW_ERR_HTTP_BAD_ANSWER', 'the answer does not start with an HTTP/1.x status line ("SSH-2.0-OpenSSH")'],
    ['MW_ERR_HTTP_BAD_ANSWER', "the answer's headers passed 64 KiB"],
    ['MW_ERR_HTTP_CLOSED', 'the receiver closed the connection before its answer ended'],
    ['MW_ERR_HTTP_CLOSED', 'the receiver closed the connection without answering'],
  ]);
  for (const error of errors) expect(error).toBeInstanceOf(Http1Error);
});

test('a kept connection the receiver drops as the next POST arrives is replaced, once, by a new one', async () => {
  await using server = await rawServer((socket, request) => {
    if (request === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
    else socket.destroy(); // as a receiver whose keep-alive ran out just then
  });
  await using client = new Http1Client({ keepAliveMs: 5_000 });
  expect(await post(client, target(server.port))).toBe(200);
  expect(await post(client, target(server.port))).toBe(200);
  expect(server.connections()).toBe(2);
});

test('an abort ends the POST with its reason; a kept connection unused for keepAliveMs is closed', async () => {
  const closed: Array<Promise<void>> = [];
  await using server = await rawServer((socket, request, connection) => {
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
    if (connection === 1 && request === 1) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
  });
  await using client = new Http1Client({ keepAliveMs: 5_000 });
  await using quick = new Http1Client({ keepAliveMs: 50 });
  const controller = new AbortController();
  expect(await post(client, target(server.port))).toBe(200);
  const hanging = post(client, target(server.port), { signal: controller.signal });
  const reason = new Error('time is up');
  setTimeout(() => controller.abort(reason), 20);
  await expect(hanging).rejects.toBe(reason);
  await closed[1]; // the connection the abort ended

  await using other = await rawServer((socket) => {
    closed.push(new Promise((resolve) => socket.once('close', () => resolve())));
    socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
  });
  expect(await post(quick, target(other.port))).toBe(200);
  await closed[2]; // closed by the client once unused for 50 ms
});

test('blank lines before a status line are passed over; a coding other than chunked makes the body end with the connection', async () => {
  await using server = await rawServer((socket, request, connection) => {
    if (connection === 1 && request === 1) socket.write('\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
    else if (connection === 1) {
      socket.write('HTTP/1.1 201 Created\r\ntransfer-encoding: gzip\r\ncontent-length: 2\r\n\r\nok');
      setTimeout(() => socket.end('and more'), 20);
    } else socket.write('HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n');
  });
  await using client = new Http1Client({ keepAliveMs: 5_000 });
  expect(await post(client, target(server.port))).toBe(200);
  expect(await post(client, target(server.port))).toBe(201);
  expect(await post(client, target(server.port))).toBe(202);
  expect(server.connections()).toBe(2);
});

test('a POST whose signal has aborted leaves the kept connection be; closing the client ends a POST under way with a reason of its own', async () => {
  await using server = await rawServer((socket, request) => {
    if (request <= 2) socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n');
  });
  const client = new Http1Client({ keepAliveMs: 5_000 });
  expect(await post(client, target(server.port))).toBe(200);
  const reason = new Error('already over');
  await expect(post(client, target(server.port), { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  expect(await post(client, target(server.port))).toBe(200);
  expect(server.connections()).toBe(1);
  const pending = post(client, target(server.port)).catch((e: unknown) => e);
  await new Promise((resolve) => setImmediate(resolve));
  await client.close();
  expect(await pending).toMatchObject({ code: 'MW_ERR_HTTP_CLIENT_CLOSED', message: 'the webhook client was closed before the answer came' });
  expect(server.connections()).toBe(1);
});

test('https: the certificate is checked; a trusted one is used and kept', async () => {
  let dir: string;
  try {
    dir = mkdtempSync(join(tmpdir(), 'mw-http1-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
  } catch {
    test.skip(true, 'openssl is not installed: no certificate to test TLS with');
    return;
  }
  const cert = readFileSync(join(dir, 'cert.pem'));
  const sockets = new Set<unknown>();
  const server = createHttpsServer({ key: readFileSync(join(dir, 'key.pem')), cert }, (req, res) => {
    sockets.add(req.socket);
    req.resume().on('end', () => res.writeHead(201).end());
  });
  const port = await listen(server);
  // Disposed last, after the clients declared below it.
  await using _server = { [Symbol.asyncDispose]: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  await using trusting = new Http1Client({ keepAliveMs: 5_000, tls: { ca: cert } });
  await using plain = new Http1Client({ keepAliveMs: 5_000 });
  expect(await post(trusting, target(port, 'https:'))).toBe(201);
  expect(await post(trusting, target(port, 'https:'))).toBe(201);
  expect(sockets.size).toBe(1);
  const refused = await post(plain, target(port, 'https:')).catch((e: unknown) => e);
  expect((refused as { code?: string }).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
});
