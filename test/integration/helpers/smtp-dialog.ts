// A minimal SMTP client for tests that must see exact reply lines (codes, enhanced codes, EHLO features).
import { connect, type Socket } from 'node:net';

/** Where {@link SmtpDialog.open} connects from and to. */
export interface DialogOptions {
  /** The server's address. @default '127.0.0.1' */
  host?: string;
  /** The local address to connect from, e.g. '127.0.0.2' (Linux routes all of 127/8 to lo). */
  localAddress?: string;
}

export class SmtpDialog {
  #buffer = '';
  #waiters: Array<() => void> = [];
  #ended = false;
  /** The server's first reply: `220 …`, or `421 …` when it turns the connection away. */
  greeting = '';
  /** Resolves when the server has closed its side of the connection (or the socket closed). */
  readonly ended: Promise<void>;
  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.ended = new Promise<void>((resolve) => {
      const end = () => {
        this.#ended = true;
        resolve();
        for (const wake of this.#waiters.splice(0)) wake();
      };
      socket.once('end', end).once('close', end);
    });
    socket.on('error', () => undefined);
  }

  static async open(port: number, options: DialogOptions = {}): Promise<SmtpDialog> {
    const socket = connect({ port, host: options.host ?? '127.0.0.1', ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const dialog = new SmtpDialog(socket);
    dialog.greeting = await dialog.reply();
    return dialog;
  }

  /** The next complete reply (all its lines). */
  async reply(timeoutMs = 10_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = /^(?:\d{3}-.*\r\n)*\d{3}(?: .*)?\r\n/.exec(this.#buffer);
      if (match) {
        this.#buffer = this.#buffer.slice(match[0].length);
        return match[0].trimEnd();
      }
      const left = deadline - Date.now();
      if (this.#ended) throw new Error(`the server closed the connection before a complete reply; got so far: ${JSON.stringify(this.#buffer)}`);
      if (left <= 0) throw new Error(`no SMTP reply within ${timeoutMs} ms; got so far: ${JSON.stringify(this.#buffer)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async command(line: string): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.reply();
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  close(): void {
    if (!this.socket.writableEnded) this.socket.end('QUIT\r\n');
  }

  /** Drops the connection without QUIT. */
  destroy(): void {
    this.socket.destroy();
  }
}
