// Owns when the SMTP greeting is sent. smtp-server pauses 100 ms before `220` on every new
// connection (an internet MX's "early talker" check, with no option to turn it off); an app
// under test that opens a connection per mail (nodemailer's default) pays it on every mail.
// mailwright is a test catcher, so it greets at once unless a delay is configured. This is a
// subclass of the library's own connection, not a patched copy: it replaces only `init()`,
// using the library's `_setListeners` and `connectionReady`; test/unit/smtp-greeting.spec.ts
// fails loudly if a new smtp-server version changes those.
import type net from 'node:net';
import type tls from 'node:tls';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

/** A connection that greets after `delayMs` (0: as soon as the socket is set up). */
class GreetingConnection extends SMTPConnection {
  constructor(server: SMTPServer, socket: net.Socket | tls.TLSSocket, options: ConstructorParameters<typeof SMTPConnection>[2], private readonly delayMs: number) {
    super(server, socket, options);
  }

  override init(): void {
    this._setListeners(() => {
      const { maxClients } = this._server.options;
      if (maxClients && this._server.connections.size > maxClients) {
        return this.send(421, `${this.name} Too many connected clients, try again in a moment`, false);
      }
      if (this.delayMs <= 0) return this.connectionReady();
      setTimeout(() => this.connectionReady(), this.delayMs).unref();
    });
  }
}

/** An SMTPServer whose connections greet after `greetingDelayMs` (default 0) instead of smtp-server's fixed 100 ms. */
export class PromptSMTPServer extends SMTPServer {
  constructor(options: SMTPServerOptions, private readonly greetingDelayMs = 0) {
    super(options);
  }

  /** As smtp-server's own `connect`, with {@link GreetingConnection} in place of SMTPConnection. */
  override connect(socket: net.Socket | tls.TLSSocket, socketOptions?: ConstructorParameters<typeof SMTPConnection>[2]): void {
    const connection = new GreetingConnection(this, socket, socketOptions, this.greetingDelayMs);
    this.connections.add(connection);
    connection.on('error', (err: Error) => this._onError(err));
    connection.on('connect', (data) => this._onClientConnect(data));
    connection.init();
  }
}
