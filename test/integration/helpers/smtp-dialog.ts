// A minimal SMTP client for tests that must see exact reply lines (codes, enhanced codes, EHLO features).
import { connect, type Socket } from 'node:net';

export class SmtpDialog {
  #buffer = '';
  #waiters: Array<() => void> = [];
  private constructor(private readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      for (const wake of this.#waiters.splice(0)) wake();
    });
  }

  static async open(port: number): Promise<SmtpDialog> {
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const dialog = new SmtpDialog(socket);
    await dialog.reply();
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
    this.socket.end('QUIT\r\n');
  }
}
