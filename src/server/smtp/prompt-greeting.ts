// Owns when the SMTP greeting is sent, and which enhanced status code a handler's reply
// carries. smtp-server pauses 100 ms before `220` on every new connection (an internet MX's
// "early talker" check, with no option to turn it off); an app under test that opens a
// connection per mail (nodemailer's default) pays it on every mail. mailwright is a test
// catcher, so it greets at once unless a delay is configured. A handler's error gets the
// library's enhanced code for its reply code (421 → 4.4.2, 452 → 4.2.2); a text made with
// {@link withEnhancedCode} carries its own (`421 4.7.0 …`, `452 4.5.3 …`) instead. This is a
// subclass of the library's own connection, not a patched copy: it replaces only `init()`,
// using the library's `_setListeners` and `connectionReady`, and wraps `send`, the library's
// one write site; test/unit/smtp-greeting.spec.ts fails loudly if a new smtp-server version
// changes those. `drop()` closes a session's connection without a reply (fault rules).
import type net from 'node:net';
import type tls from 'node:tls';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';

/** A reply text that names its own enhanced status code: `4.5.3 Too many recipients`. */
const OWN_ENHANCED_CODE = /^([245]\.\d{1,3}\.\d{1,3}) ([^]*)$/;

/** `text` for a handler's error, to be sent with `enhancedCode` rather than the library's default for its reply code. */
export function withEnhancedCode(enhancedCode: `${2 | 4 | 5}.${number}.${number}`, text: string): string {
  return `${enhancedCode} ${text}`;
}

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

  /** As the library's `send`; a handler's text that starts with its own enhanced code is sent with that code alone. */
  override send(code: number, data?: string | string[] | null, context?: string | false): void {
    const own = context === undefined && typeof data === 'string' ? OWN_ENHANCED_CODE.exec(data) : null;
    if (!own) return super.send(code, data, context);
    super.send(code, this._server.options.hideENHANCEDSTATUSCODES ? own[2] : data, false);
  }
}

/** An SMTPServer whose connections greet after `greetingDelayMs` (default 0) instead of smtp-server's fixed 100 ms. */
export class PromptSMTPServer extends SMTPServer {
  constructor(options: SMTPServerOptions, private readonly greetingDelayMs = 0) {
    super(options);
  }

  /** Closes the connection of the session `sessionId` at once, without a reply (a fault rule's `disconnect`). */
  drop(sessionId: string): void {
    for (const connection of this.connections) {
      if ((connection as SMTPConnection).id === sessionId) (connection as SMTPConnection & { _socket: net.Socket })._socket.destroy();
    }
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
