// Unit tests of the worker's mailbox registry (src/playwright/mailboxes.ts) and of the webhook
// link's clean-up (src/playwright/webhook-link.ts), without a service.
import { test, expect } from '@playwright/test';
import { MailwrightApiError } from '../../src/client/index.js';
import { Mailboxes, type Subscriber } from '../../src/playwright/mailboxes.js';
import type { MailMessage } from '../../src/playwright/message.js';
import { WebhookLink, type WebhookClient } from '../../src/playwright/webhook-link.js';
import type { Mailbox, Message } from '../../src/protocol/index.js';

const mailbox = (id: string): Mailbox => ({ id, email: `${id}@mailwright.test`, createdAt: new Date().toISOString(), expiresAt: new Date(Date.now() + 60_000).toISOString(), webhookId: null });
const message = (id: string, mailboxId: string, receivedAt = new Date()): Message => ({
  id, mailboxId, mailbox: `${mailboxId}@mailwright.test`, from: { address: 'app@app.test', name: '' }, to: [], cc: [], subject: id,
  receivedAt: receivedAt.toISOString(), size: 1, headers: {}, text: id, html: null, attachments: [],
});

function waiter(seen: string[], polled = false): Subscriber {
  return { polled, usedFallback: false, onMessage: (m: MailMessage) => seen.push(m.id), onGone: () => seen.push('gone'), onDropped: () => seen.push('dropped') };
}

test('each message is routed once to the waits of its own mailbox; the first path to see it is counted', () => {
  const boxes = new Mailboxes();
  const a = boxes.add(mailbox('a'));
  boxes.add(mailbox('b'));
  const seenA: string[] = [];
  a.subscribers.add(waiter(seenA));
  expect(boxes.ingest(message('m1', 'a'), 'webhook')?.id).toBe('m1');
  expect(boxes.ingest(message('m1', 'a'), 'poll')?.id).toBe('m1'); // the poll loop saw it too
  boxes.ingest(message('m2', 'b'), 'poll');
  expect(boxes.ingest(message('m3', 'another-workers'), 'webhook')).toBeUndefined();
  expect(seenA).toEqual(['m1']);
  expect(boxes.counts).toEqual({ webhook: 1, poll: 1, api: 0, duplicates: 1 });
  expect(boxes.known('a').map((m) => m.id)).toEqual(['m1']);
});

test('known() is oldest first; polled() names the mailboxes with a polled wait; remove() ends waits unsettled', () => {
  const boxes = new Mailboxes();
  const a = boxes.add(mailbox('a'));
  const b = boxes.add(mailbox('b'));
  boxes.ingest(message('late', 'a', new Date(2026, 0, 1, 12)), 'api');
  boxes.ingest(message('early', 'a', new Date(2026, 0, 1, 11)), 'api');
  expect(boxes.known('a').map((m) => m.id)).toEqual(['early', 'late']);
  const seen: string[] = [];
  a.subscribers.add(waiter(seen, false));
  b.subscribers.add(waiter(seen, true));
  expect(boxes.polled()).toEqual(['b']);
  expect(boxes.remove('b')?.mailbox.id).toBe('b');
  expect(seen).toEqual(['dropped']);
  expect(boxes.polled()).toEqual([]);
  expect(boxes.ingest(message('m9', 'b'), 'webhook')).toBeUndefined();
  expect(boxes.clear().map((s) => s.mailbox.id)).toEqual(['a']);
});

test('a webhook that cannot be deleted at once is deleted on a later try; one already gone counts as deleted', async () => {
  const calls: string[] = [];
  let failures = 2;
  const client: WebhookClient = {
    createWebhook: async ({ url }) => ({ id: 'wh_1', url, catchAll: false, createdAt: new Date().toISOString(), secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }),
    testWebhook: async () => {
      throw new Error('unreachable');
    },
    deleteWebhook: async (id) => {
      calls.push(id);
      if (failures-- > 0) throw new MailwrightApiError({ status: 503, code: 'http_503', detail: 'busy', method: 'DELETE', url: '/x', message: 'busy' });
    },
  };
  // The test event fails: start() takes the webhook down again, retrying the delete.
  const result = await WebhookLink.start(client, { receiverHost: '127.0.0.1', receiverURL: undefined, deleteRetryDelays: [0, 0] }, () => {});
  expect('reason' in result && result.reason).toContain('setting up the webhook receiver failed: unreachable');
  expect(calls).toEqual(['wh_1', 'wh_1', 'wh_1']);

  calls.length = 0;
  client.deleteWebhook = async (id) => {
    calls.push(id);
    throw new MailwrightApiError({ status: 404, code: 'webhook_not_found', detail: 'gone', method: 'DELETE', url: '/x', message: 'gone' });
  };
  await WebhookLink.start(client, { receiverHost: '127.0.0.1', receiverURL: undefined, deleteRetryDelays: [0, 0] }, () => {});
  expect(calls).toEqual(['wh_1']);
});
