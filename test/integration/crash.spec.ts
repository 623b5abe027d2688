import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import nodemailer from 'nodemailer';
import { refusingPort } from '../helpers/ports.js';
import { spawnServe } from './helpers/serve-process.js';
import { ADMIN_KEY, tempDir } from './helpers/service.js';

const api = (url: string, path: string, init: RequestInit = {}) =>
  fetch(url + path, { ...init, headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json', ...init.headers } }).then((r) => r.json() as Promise<any>);

test('kill -9 during ingestion loses no message that got 250, nor the webhook delivery it is owed', async () => {
  test.setTimeout(90_000);
  const data = join(tempDir(), 'crash.db');
  // The webhook's receiver is down: every delivery stays pending, to be found after the crash.
  const receiver = await refusingPort();
  const first = await spawnServe(['--data', data, '--api-key', ADMIN_KEY]);
  const webhook = await api(first.httpUrl, '/api/config/webhooks', { method: 'POST', body: JSON.stringify({ url: receiver.url() }) });
  const box = await api(first.httpUrl, '/api/emails/generate', { method: 'POST', body: JSON.stringify({ expiryTime: 3_600_000, webhookId: webhook.id }) });

  const accepted = new Set<string>();
  let killed = false;
  const KILL_AFTER = 60;
  const sender = async (lane: number) => {
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port: first.smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: 1, maxMessages: Infinity });
    for (let i = 0; i < 500 && !killed; i++) {
      const subject = `lane${lane}-msg${i}`;
      try {
        const info = await transport.sendMail({ from: 'load@example.test', to: box.email, subject, text: `body ${subject}\n${'filler '.repeat(200)}` });
        if (/^250 /.test(info.response)) accepted.add(subject);
        if (accepted.size >= KILL_AFTER && !killed) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      } catch {
        break; // the server died mid-transaction: the client would retry later
      }
    }
    transport.close();
  };
  await Promise.all([0, 1, 2, 3].map(sender));
  const exit = await first.exited;
  expect(exit.signal).toBe('SIGKILL');
  expect(accepted.size).toBeGreaterThanOrEqual(KILL_AFTER);

  const second = await spawnServe(['--data', data, '--api-key', ADMIN_KEY]);
  try {
    const stored = new Map<string, string>();
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await api(second.httpUrl, `/api/emails/${box.id}?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
      for (const m of res.messages) stored.set(m.subject, m.id);
      cursor = res.nextCursor;
      if (!cursor) break;
    }
    const lost = [...accepted].filter((s) => !stored.has(s));
    expect(lost, `messages acknowledged with 250 but missing after the crash`).toEqual([]);

    // Deliveries are committed with their message: every stored message still has its one.
    const log = await api(second.httpUrl, `/api/config/webhooks/${webhook.id}/deliveries?limit=100`);
    expect(stored.size, 'more messages than one page of the delivery log holds').toBeLessThanOrEqual(100);
    const delivered = log.deliveries.map((d: { messageId: string }) => d.messageId).sort();
    expect(delivered, 'messages stored without the webhook delivery they are owed').toEqual([...stored.values()].sort());
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
    await receiver.close();
  }
});
