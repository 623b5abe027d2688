// The SMTP greeting comes at once: mailwright replaces smtp-server's fixed 100 ms "early
// talker" pause through a subclass. These tests fail loudly when a new smtp-server changes
// what the subclass relies on, and show the greeting delay option on a real connection.
import { connect, type Socket } from 'node:net';
import { expect, test } from '@playwright/test';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection } from 'smtp-server/lib/smtp-connection.js';
import { PromptSMTPServer } from '../../src/server/smtp/prompt-greeting.js';

test("smtp-server still has what the subclass builds on (a failure here: re-check src/server/smtp/prompt-greeting.ts against the new version)", () => {
  for (const method of ['init', 'connectionReady', '_setListeners', 'send'] as const) {
    expect(typeof SMTPConnection.prototype[method], `SMTPConnection.prototype.${method}`).toBe('function');
  }
  for (const method of ['connect', '_onError', '_onClientConnect'] as const) {
    expect(typeof SMTPServer.prototype[method], `SMTPServer.prototype.${method}`).toBe('function');
  }
  // Its own connect() still makes exactly the steps ours repeats, and init() still holds the pause we replace.
  const connectSource = SMTPServer.prototype.connect.toString();
  for (const step of ['new SMTPConnection(', 'connections.add(', "on('error'", "on('connect'", '.init()']) expect(connectSource).toContain(step);
  expect(SMTPConnection.prototype.init.toString()).toMatch(/setTimeout\(\(\) => this\.connectionReady\(\), 100\)/);
});

/** Connects, and writes `EHLO` at once when `talkFirst`; resolves with the first reply line. */
async function firstReply(server: SMTPServer, talkFirst: boolean): Promise<string> {
  const port = (server.server.address() as { port: number }).port;
  const socket: Socket = connect(port, '127.0.0.1');
  try {
    if (talkFirst) socket.write('EHLO early.example\r\n');
    return await new Promise<string>((resolve, reject) => {
      let data = '';
      socket.on('data', (chunk) => {
        data += chunk;
        if (data.includes('\r\n')) resolve(data.split('\r\n')[0]!);
      });
      socket.on('error', reject);
    });
  } finally {
    socket.destroy();
  }
}

async function listening(delayMs: number): Promise<PromptSMTPServer> {
  const server = new PromptSMTPServer({ authOptional: true, disabledCommands: ['STARTTLS'], disableReverseLookup: true, logger: false, name: 'mw.test' }, delayMs);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

test('a client that waits for the greeting gets 220; with a configured pause an early talker is refused, as by an MX', async () => {
  const prompt = await listening(0);
  const patient = await listening(60_000);
  try {
    expect(await firstReply(prompt, false)).toMatch(/^220 mw\.test/);
    // The configured pause is the library's early-talker check: talking first is refused at once.
    expect(await firstReply(patient, true)).toMatch(/^421 /);
  } finally {
    await Promise.all([prompt, patient].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  }
});
