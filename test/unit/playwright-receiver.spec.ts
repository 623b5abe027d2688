// Unit tests of the webhook receiver (src/playwright/receiver.ts) over loopback: signed
// deliveries are handed on and answered 204, bad signatures get 401, bodies that are not a
// protocol event get 400 and are not handed on, repeats are dropped.
import { test, expect } from '@playwright/test';
import { request } from 'undici';
import type { Message, MessageReceivedEvent, WebhookTestEvent } from '../../src/protocol/index.js';
import { generateWebhookSecret, webhookHeaders } from '../../src/protocol/index.js';
import { WebhookReceiver } from '../../src/playwright/receiver.js';

const message: Message = {
  id: 'msg_1',
  mailboxId: 'mbx_1',
  mailbox: 'a@mailwright.test',
  from: { address: 'x@app.test', name: '' },
  to: [{ address: 'a@mailwright.test', name: '' }],
  cc: [],
  subject: 'Hi',
  receivedAt: new Date().toISOString(),
  size: 10,
  headers: {},
  text: 'hello',
  html: null,
  attachments: [],
};

async function send(url: string, body: string, headers: Record<string, string>) {
  const response = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: response.statusCode, text: await response.body.text() };
}

async function post(url: string, body: string, headers: Record<string, string>) {
  return (await send(url, body, headers)).status;
}

test('verifies, hands on, de-duplicates and confirms test events', async () => {
  const received: Message[] = [];
  const receiver = await WebhookReceiver.start({ host: '127.0.0.1', onMessage: (m) => received.push(m) });
  try {
    expect(receiver.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mailwright\/webhook\/[0-9a-f]{16}$/);
    const secret = generateWebhookSecret();
    const event: MessageReceivedEvent = { type: 'message.received', timestamp: new Date().toISOString(), data: message };
    const body = JSON.stringify(event);

    expect(await post(receiver.url, body, webhookHeaders(secret, 'dlv_1', body))).toBe(503); // no secret yet
    receiver.setSecret(secret);

    expect(await post(receiver.url, body, webhookHeaders(generateWebhookSecret(), 'dlv_1', body))).toBe(401);
    expect(await post(receiver.url, body, {})).toBe(401);
    expect(await post(receiver.url, body, webhookHeaders(secret, 'dlv_1', body, Date.now() - 3_600_000))).toBe(401);
    expect(received).toEqual([]);

    expect(await post(receiver.url, body, webhookHeaders(secret, 'dlv_1', body))).toBe(204);
    expect(await post(receiver.url, body, webhookHeaders(secret, 'dlv_1', body))).toBe(204); // a retry of the same delivery
    expect(received).toEqual([message]);

    const wrongPath = receiver.url.replace(/[0-9a-f]{16}$/, '0000000000000000');
    expect(await post(wrongPath, body, webhookHeaders(secret, 'dlv_2', body))).toBe(404);

    expect(receiver.hasTestEvent('wh_1')).toBe(false);
    const testEvent: WebhookTestEvent = { type: 'webhook.test', timestamp: new Date().toISOString(), data: { webhookId: 'wh_1', nonce: 'n' } };
    const testBody = JSON.stringify(testEvent);
    expect(await post(receiver.url, testBody, webhookHeaders(secret, 'dlv_3', testBody))).toBe(204);
    expect(receiver.hasTestEvent('wh_1')).toBe(true);
  } finally {
    await receiver.close();
    await receiver.close(); // idempotent
  }
});

test('a delivery the worker fails to handle is answered 5xx, so the service retries it, and the retry is handled', async () => {
  const received: Message[] = [];
  let failures = 1;
  const receiver = await WebhookReceiver.start({
    host: '127.0.0.1',
    onMessage: (m) => {
      if (failures-- > 0) throw new Error('bookkeeping failed');
      received.push(m);
    },
  });
  try {
    const secret = generateWebhookSecret();
    receiver.setSecret(secret);
    const body = JSON.stringify({ type: 'message.received', timestamp: new Date().toISOString(), data: message } satisfies MessageReceivedEvent);
    expect(await post(receiver.url, body, webhookHeaders(secret, 'dlv_retry', body))).toBe(500);
    expect(received).toEqual([]);
    // The service's retry carries the same webhook-id: it is not dropped as a repeat.
    expect(await post(receiver.url, body, webhookHeaders(secret, 'dlv_retry', body))).toBe(204);
    expect(received).toEqual([message]);
  } finally {
    await receiver.close();
  }
});

test('an authentic delivery whose body is not a protocol event is answered 400 with the reason and not handed on', async () => {
  const received: Message[] = [];
  const receiver = await WebhookReceiver.start({ host: '127.0.0.1', onMessage: (m) => received.push(m) });
  try {
    const secret = generateWebhookSecret();
    receiver.setSecret(secret);
    const now = new Date().toISOString();
    const { id: _id, ...withoutId } = message;
    const cases: Array<[body: string, reason: string]> = [
      ['not json', 'the body is not JSON'],
      [JSON.stringify({ type: 'message.received', timestamp: now, data: withoutId }), '`/data/id` is missing'],
      [JSON.stringify({ type: 'message.received', timestamp: now, data: { ...message, size: '10' } }), '`/data/size` must be integer'],
      [JSON.stringify({ type: 'message.received', timestamp: 'yesterday', data: message }), '`/timestamp` must match format "date-time"'],
      [JSON.stringify({ type: 'message.deleted', timestamp: now, data: message }), '`/type` is "message.deleted"'],
      [JSON.stringify({ type: 'webhook.test', timestamp: now, data: { webhookId: 7, nonce: 'n' } }), '`/data/webhookId` must be string'],
      [JSON.stringify(null), '`/type` is undefined'],
    ];
    for (const [index, [body, reason]] of cases.entries()) {
      const answer = await send(receiver.url, body, webhookHeaders(secret, `dlv_bad_${index}`, body));
      expect(answer.status, body).toBe(400);
      expect((JSON.parse(answer.text) as { error: string }).error, body).toContain(reason);
    }
    expect(received).toEqual([]);
    expect(receiver.hasTestEvent('7')).toBe(false);
  } finally {
    await receiver.close();
  }
});

test('a message is handed on before its 204 is written: what awaits it runs first', async () => {
  const order: string[] = [];
  let resolveWait: (m: Message) => void = () => {};
  // A wait several awaits deep, as the fixture's waitForMessage is.
  const waited = new Promise<Message>((resolve) => (resolveWait = resolve))
    .then(async (m) => m)
    .then(async (m) => (await Promise.resolve(), m))
    .then(() => order.push('wait resolved'));
  const receiver = await WebhookReceiver.start({ host: '127.0.0.1', onMessage: (m) => resolveWait(m) });
  const { ServerResponse } = await import('node:http');
  const end = ServerResponse.prototype.end;
  ServerResponse.prototype.end = function (this: InstanceType<typeof ServerResponse>, ...args: unknown[]) {
    order.push(`answered ${this.statusCode}`);
    return (end as (...a: unknown[]) => InstanceType<typeof ServerResponse>).apply(this, args);
  } as typeof end;
  try {
    const secret = generateWebhookSecret();
    receiver.setSecret(secret);
    const body = JSON.stringify({ type: 'message.received', timestamp: new Date().toISOString(), data: message } satisfies MessageReceivedEvent);
    expect(await post(receiver.url, body, webhookHeaders(secret, 'dlv_order', body))).toBe(204);
    await waited;
    expect(order).toEqual(['wait resolved', 'answered 204']);
  } finally {
    ServerResponse.prototype.end = end;
    await receiver.close();
  }
});

test('anything but a POST to its path is answered 404, and close() does not wait for an idle keep-alive connection', async () => {
  const receiver = await WebhookReceiver.start({ host: '127.0.0.1', onMessage: () => {} });
  const origin = receiver.url.slice(0, receiver.url.length - receiver.path.length);
  expect(await post(`${origin}/elsewhere`, '{}', {})).toBe(404);
  const get = await request(receiver.url, { method: 'GET' });
  await get.body.dump();
  expect(get.statusCode).toBe(404);
  // Not ready yet (no secret): 503, over a connection undici keeps alive afterwards.
  expect(await post(receiver.url, '{}', {})).toBe(503);
  const started = performance.now();
  await receiver.close();
  // The server's keep-alive timeout is 5 s: closing returns long before it.
  expect(performance.now() - started).toBeLessThan(2_000);
});
