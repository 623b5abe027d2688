// Ports for tests that need a target nobody answers on, without a fixed port and without
// releasing a port that something else could take before the test uses it.
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';

export interface RefusingPort {
  port: number;
  /** `http://127.0.0.1:<port><path>` */
  url(path?: string): string;
  close(): Promise<void>;
}

/**
 * A port on 127.0.0.1 that refuses every connection (ECONNREFUSED) for as long as it is held:
 * the local end of a connection this process keeps open to a listener of its own. The OS
 * keeps that port for the connection (no one can listen on it meanwhile) and nothing listens
 * on it. `close()` lets it go.
 */
export async function refusingPort(): Promise<RefusingPort> {
  const accepted: Socket[] = [];
  const listener = createServer((socket) => void accepted.push(socket));
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const client = connect((listener.address() as { port: number }).port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => client.once('connect', resolve).once('error', reject));
  const port = client.localPort!;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    async close() {
      client.destroy();
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    },
  };
}

export interface ReturningTarget {
  /** `http://127.0.0.2:<port>/hook`: refuses connections until `serve()`. */
  url: string;
  /** Starts answering on the target's address with `handler`. */
  serve(handler: RequestListener): Promise<void>;
  /** Stops answering: connections are refused again. */
  refuse(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A target that refuses connections until the test brings it back, on the same URL:
 * `127.0.0.2:<port>`, where `port` is held by a listener of ours on 127.0.0.1 (so no one can
 * take it for every address meanwhile) and nothing listens on 127.0.0.2 until `serve()`.
 * Needs the whole of 127.0.0.0/8 on the loopback interface, as Linux has it.
 */
export async function returningTarget(): Promise<ReturningTarget> {
  const holder = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const port = (holder.address() as { port: number }).port;
  let server: Server | null = null;
  const refuse = async () => {
    const serving = server;
    server = null;
    if (!serving) return;
    const closed = new Promise<void>((resolve) => serving.close(() => resolve()));
    serving.closeAllConnections();
    await closed;
  };
  return {
    url: `http://127.0.0.2:${port}/hook`,
    async serve(handler) {
      const started = createHttpServer(handler);
      await new Promise<void>((resolve, reject) => started.once('error', reject).listen(port, '127.0.0.2', resolve));
      server = started;
    },
    refuse,
    async close() {
      await refuse();
      await new Promise<void>((resolve) => holder.close(() => resolve()));
    },
  };
}
