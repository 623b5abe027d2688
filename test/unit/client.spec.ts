// Tests MailwrightClient against a local stub HTTP server (node:http on port 0) that
// records what the client sends and answers canned responses.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test as base, expect } from '@playwright/test';
import { Agent, type Dispatcher } from 'undici';
import {
  MAX_429_RETRIES,
  MailwrightApiError,
  MailwrightClient,
  MailwrightError,
  type Mailbox,
  type Message,
} from '../../src/client/index.js';

// ---- the stub ------------------------------------------------------------------------

interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request had fully arrived. */
  at: number;
}

interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** Sent as JSON (problem+json when it has a `code` and status ≥ 400). */
  json?: unknown;
  /** Sent verbatim. */
  raw?: string | Buffer;
  /** Never answer. */
  hang?: boolean;
}

type Handler = (request: Received, index: number) => Reply;

interface Stub {
  url: string;
  received: Received[];
  /** Sets how the stub answers. */
  reply(handler: Handler): void;
  /** Resolves when the next request has arrived. */
  nextRequest(): Promise<Received>;
}

async function startStub(): Promise<{ stub: Stub; close(): Promise<void> }> {
  const received: Received[] = [];
  const waiters: Array<(request: Received) => void> = [];
  let handler: Handler = () => ({ status: 500, raw: 'no handler set' });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stub');
      const request: Received = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      received.push(request);
      for (const waiter of waiters.splice(0)) waiter(request);
      const reply = handler(request, received.length - 1);
      if (reply.hang) return;
      const status = reply.status ?? 200;
      const headers: Record<string, string> = { ...reply.headers };
      let payload: string | Buffer = '';
      if (reply.json !== undefined) {
        payload = JSON.stringify(reply.json);
        const isProblem = status >= 400 && typeof (reply.json as { code?: unknown }).code === 'string';
        headers['content-type'] ??= isProblem ? 'application/problem+json' : 'application/json';
      } else if (reply.raw !== undefined) {
        payload = reply.raw;
      }
      res.writeHead(status, headers);
      res.end(payload);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    stub: {
      url: `http://127.0.0.1:${port}`,
      received,
      reply: (next) => {
        handler = next;
      },
      nextRequest: () => new Promise((resolve) => waiters.push(resolve)),
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const API_KEY = 'mw_test_0123456789';

const test = base.extend<{ stub: Stub; client: MailwrightClient }>({
  stub: async ({}, use) => {
    const { stub, close } = await startStub();
    await use(stub);
    await close();
  },
  client: async ({ stub }, use) => {
    const client = new MailwrightClient({ baseURL: stub.url, apiKey: API_KEY });
    await use(client);
    await client.close();
  },
});

function problem(
  status: number,
  code: string,
  detail: string,
  options: { field?: string; headers?: Record<string, string> } = {},
): Reply {
  const { headers, ...extra } = options;
  return {
    status,
    json: { type: `https://mailwright.dev/errors/${code}`, title: code, status, detail, code, ...extra },
    ...(headers ? { headers } : {}),
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to reject');
}

const mailbox: Mailbox = {
  id: 'mbx_1',
  email: 'alice@mailwright.test',
  createdAt: '2025-01-01T00:00:00.000Z',
  expiresAt: '2025-01-01T01:00:00.000Z',
  webhookId: 'wh_1',
};

const message: Message = {
  id: 'msg_1',
  mailboxId: 'mbx_1',
  mailbox: 'alice@mailwright.test',
  from: { address: 'app@example.com', name: 'App' },
  to: [{ address: 'alice@mailwright.test', name: '' }],
  cc: [],
  subject: 'Verify your email',
  receivedAt: '2025-01-01T00:00:01.000Z',
  size: 1234,
  headers: { subject: 'Verify your email', received: ['a', 'b'] },
  text: 'Your code is 123456',
  html: '<p>Your code is <b>123456</b></p>',
  attachments: [],
};

// ---- endpoints -----------------------------------------------------------------------

test.describe('requests', () => {
  test('createMailbox POSTs the JSON body with the key and returns the 201 mailbox', async ({ stub, client }) => {
    stub.reply(() => ({ status: 201, json: mailbox }));
    const created = await client.createMailbox({ name: 'alice', expiryTime: 3_600_000, webhookId: 'wh_1' });
    expect(created).toEqual(mailbox);
    const [request] = stub.received;
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/api/emails/generate');
    expect(request?.headers['x-api-key']).toBe(API_KEY);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(JSON.parse(request?.body ?? '')).toEqual({ name: 'alice', expiryTime: 3_600_000, webhookId: 'wh_1' });
  });

  test('listEmails repeats the mailbox parameter and sends after, limit, wait and include=body', async ({
    stub,
    client,
  }) => {
    stub.reply(() => ({ json: { messages: [message], cursor: 'c2' } }));
    const page = await client.listEmails({
      mailbox: ['mbx_1', 'Bob@mailwright.test'],
      after: 'c1',
      limit: 10,
      wait: 1,
      includeBody: true,
    });
    expect(page).toEqual({ messages: [message], cursor: 'c2' });
    const request = stub.received[0]!;
    expect(request.method).toBe('GET');
    expect(request.path).toBe('/api/emails');
    expect(request.query.getAll('mailbox')).toEqual(['mbx_1', 'Bob@mailwright.test']);
    expect(request.query.get('after')).toBe('c1');
    expect(request.query.get('limit')).toBe('10');
    expect(request.query.get('wait')).toBe('1');
    expect(request.query.get('include')).toBe('body');
    expect(request.body).toBe('');
    expect(request.headers['content-type']).toBeUndefined();
  });

  test('listEmails without options sends no query and a single mailbox once', async ({ stub, client }) => {
    stub.reply(() => ({ json: { messages: [], cursor: 'c0' } }));
    await client.listEmails();
    await client.listEmails({ mailbox: 'mbx_1' });
    expect([...stub.received[0]!.query.keys()]).toEqual([]);
    expect(stub.received[1]!.query.getAll('mailbox')).toEqual(['mbx_1']);
    expect(stub.received[1]!.query.has('include')).toBe(false);
  });

  test('getMailbox encodes the address and passes cursor and limit', async ({ stub, client }) => {
    const answer = { mailbox, messages: [], nextCursor: null, total: 0 };
    stub.reply(() => ({ json: answer }));
    expect(await client.getMailbox('alice@mailwright.test', { cursor: 'p2', limit: 5 })).toEqual(answer);
    const request = stub.received[0]!;
    expect(request.method).toBe('GET');
    expect(decodeURIComponent(request.path)).toBe('/api/emails/alice@mailwright.test');
    expect(request.query.get('cursor')).toBe('p2');
    expect(request.query.get('limit')).toBe('5');
  });

  test('getMessage unwraps { message }', async ({ stub, client }) => {
    stub.reply(() => ({ json: { message } }));
    expect(await client.getMessage('mbx_1', 'msg_1')).toEqual(message);
    expect(stub.received[0]!.path).toBe('/api/emails/mbx_1/msg_1');
  });

  test('getRawMessage returns the source as a string or the exact bytes', async ({ stub, client }) => {
    const source = Buffer.from('From: app@example.com\r\nSubject: Grüße\r\n\r\nHi\r\n', 'utf8');
    stub.reply(() => ({ headers: { 'content-type': 'message/rfc822' }, raw: source }));
    expect(await client.getRawMessage('mbx_1', 'msg_1')).toBe(source.toString('utf8'));
    const bytes = await client.getRawMessage('mbx_1', 'msg_1', { as: 'buffer' });
    expect(Buffer.isBuffer(bytes)).toBe(true);
    expect(bytes.equals(source)).toBe(true);
    expect(stub.received[0]!.path).toBe('/api/emails/mbx_1/msg_1/raw');
  });

  test('configuration endpoints use the SPEC paths and methods', async ({ stub, client }) => {
    const webhook = { id: 'wh_1', url: 'http://127.0.0.1:9/hook', catchAll: true, createdAt: '2025-01-01T00:00:00.000Z' };
    const quota = { period: '2025-01', allowance: 10_000, topUps: 0, used: 1, remaining: 9_999, resetsAt: '2025-02-01T00:00:00.000Z' };
    const config = {
      domains: ['mailwright.test'],
      expiryOptions: [3_600_000],
      minExpiryTime: 60_000,
      maxExpiryTime: 259_200_000,
      role: 'civilian',
      limits: { monthlyCalls: 10_000, maxMailboxes: 100, maxExpiryTime: 259_200_000, maxMessageSize: 10_485_760 },
      mailboxes: { live: 1 },
      quota,
    };
    const delivery = {
      id: 'dlv_1',
      event: 'message.received',
      messageId: 'msg_1',
      mailboxId: 'mbx_1',
      status: 'delivered',
      createdAt: '2025-01-01T00:00:00.000Z',
      nextAttemptAt: null,
      attempts: [],
    };
    stub.reply((request) => {
      const route = `${request.method} ${request.path}`;
      switch (route) {
        case 'GET /api/config':
          return { json: config };
        case 'POST /api/config/webhooks':
          return { status: 201, json: { ...webhook, secret: 'whsec_abc' } };
        case 'GET /api/config/webhooks':
          return { json: { webhooks: [webhook] } };
        case 'DELETE /api/config/webhooks/wh_1':
          return { status: 204 };
        case 'POST /api/config/webhooks/wh_1/test':
          return { json: { delivered: true, statusCode: 200, durationMs: 3, error: null } };
        case 'GET /api/config/webhooks/wh_1/deliveries':
          return { json: { deliveries: [delivery] } };
        case 'POST /api/config/quota/redeem':
          return { json: { calls: 500, quota } };
        default:
          return problem(404, 'not_found', `no route ${route}`);
      }
    });

    expect(await client.getConfig()).toEqual(config);
    expect(await client.createWebhook({ url: webhook.url })).toEqual({ ...webhook, secret: 'whsec_abc' });
    expect(JSON.parse(stub.received[1]!.body)).toEqual({ url: webhook.url });
    expect(await client.listWebhooks()).toEqual([webhook]);
    expect(await client.deleteWebhook('wh_1')).toBeUndefined();
    expect(await client.testWebhook('wh_1')).toEqual({ delivered: true, statusCode: 200, durationMs: 3, error: null });
    expect(stub.received[4]!.body).toBe('');
    expect(stub.received[4]!.headers['content-type']).toBeUndefined();
    expect(await client.listDeliveries('wh_1', { limit: 20 })).toEqual([delivery]);
    expect(stub.received[5]!.query.get('limit')).toBe('20');
    expect(await client.redeem('TOPUP-1')).toEqual({ calls: 500, quota });
    expect(JSON.parse(stub.received[6]!.body)).toEqual({ code: 'TOPUP-1' });
    for (const request of stub.received) expect(request.headers['x-api-key']).toBe(API_KEY);
  });

  test('health needs no key and a baseURL path prefix is kept', async ({ stub }) => {
    stub.reply(() => ({ json: { status: 'ok', version: '0.1.0' } }));
    await using client = new MailwrightClient({ baseURL: `${stub.url}/mailwright/` });
    expect(await client.health()).toEqual({ status: 'ok', version: '0.1.0' });
    expect(stub.received[0]!.path).toBe('/mailwright/health');
    expect(stub.received[0]!.headers['x-api-key']).toBeUndefined();
    expect(client.baseURL).toBe(`${stub.url}/mailwright`);
  });
});

// ---- errors --------------------------------------------------------------------------

test.describe('errors', () => {
  test('a problem+json answer becomes a MailwrightApiError with code, status and detail', async ({ stub, client }) => {
    stub.reply(() => problem(404, 'mailbox_not_found', 'No mailbox nope@mailwright.test'));
    const error = await rejection(client.getMailbox('nope@mailwright.test'));
    expect(error).toBeInstanceOf(MailwrightApiError);
    expect(error).toBeInstanceOf(MailwrightError);
    const apiError = error as MailwrightApiError;
    expect(apiError.code).toBe('mailbox_not_found');
    expect(apiError.status).toBe(404);
    expect(apiError.detail).toBe('No mailbox nope@mailwright.test');
    expect(apiError.method).toBe('GET');
    expect(apiError.url).toBe(`${stub.url}/api/emails/nope%40mailwright.test`);
    expect(apiError.retryAfter).toBeUndefined();
    expect(apiError.message).toContain('404 mailbox_not_found');
    expect(apiError.message).toContain('createMailbox');
    expect(apiError.message).not.toContain(API_KEY);
  });

  test('invalid_request names the field', async ({ stub, client }) => {
    stub.reply(() => problem(400, 'invalid_request', 'expiryTime must be at least 60000', { field: 'expiryTime' }));
    const error = (await rejection(client.createMailbox({ expiryTime: 5 }))) as MailwrightApiError;
    expect(error.code).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.field).toBe('expiryTime');
    expect(error.message).toContain('`expiryTime`');
  });

  test('missing_api_key tells how to get a key', async ({ stub, client }) => {
    stub.reply(() => problem(401, 'missing_api_key', 'Send X-API-Key'));
    const error = (await rejection(client.getConfig())) as MailwrightApiError;
    expect(error.code).toBe('missing_api_key');
    expect(error.status).toBe(401);
    expect(error.message).toContain('mailwright keys create');
  });

  test("a proxy's HTML 502 is a MailwrightApiError with code http_502", async ({ stub, client }) => {
    stub.reply(() => ({
      status: 502,
      headers: { 'content-type': 'text/html' },
      raw: '<html><body><h1>502 Bad Gateway</h1></body></html>',
    }));
    const error = (await rejection(client.listEmails())) as MailwrightApiError;
    expect(error).toBeInstanceOf(MailwrightApiError);
    expect(error.code).toBe('http_502');
    expect(error.status).toBe(502);
    expect(error.detail).toBe('502 Bad Gateway');
    expect(error.problem).toBeUndefined();
    expect(error.message).toContain('text/html');
    expect(error.message).toContain('baseURL');
  });

  test('a closed port is MW_ERR_CONNECTION naming the URL and `mailwright serve`', async () => {
    const { stub, close } = await startStub();
    await close();
    await using client = new MailwrightClient({ baseURL: stub.url, apiKey: API_KEY });
    const error = (await rejection(client.health())) as MailwrightError;
    expect(error).toBeInstanceOf(MailwrightError);
    expect(error).not.toBeInstanceOf(MailwrightApiError);
    expect(error.code).toBe('MW_ERR_CONNECTION');
    expect(error.message).toContain(`${stub.url}/health`);
    expect(error.message).toContain('mailwright serve');
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  test('a 2xx body that is not JSON, or lacks the promised keys, is MW_ERR_BAD_RESPONSE', async ({ stub, client }) => {
    stub.reply((_request, index) =>
      index === 0 ? { headers: { 'content-type': 'text/html' }, raw: '<html>login</html>' } : { json: { hello: 1 } },
    );
    const notJson = (await rejection(client.getConfig())) as MailwrightError;
    expect(notJson.code).toBe('MW_ERR_BAD_RESPONSE');
    expect(notJson.message).toContain('not JSON');
    expect(notJson.cause).toBeInstanceOf(SyntaxError);
    const wrongShape = (await rejection(client.listEmails())) as MailwrightError;
    expect(wrongShape.code).toBe('MW_ERR_BAD_RESPONSE');
    expect(wrongShape.message).toContain('`/messages` is missing');
  });

  test('a 2xx body that does not match the endpoint\'s protocol schema is MW_ERR_BAD_RESPONSE naming the endpoint and the first mismatch', async ({
    stub,
    client,
  }) => {
    const { expiresAt: _expiresAt, ...withoutExpiry } = mailbox;
    const { headers: _headers, ...summary } = message;
    const cases: Array<[call: () => Promise<unknown>, answer: unknown, endpoint: string, mismatch: string]> = [
      [() => client.createMailbox({ expiryTime: 3_600_000 }), withoutExpiry, 'POST /api/emails/generate', '`/expiresAt` is missing'],
      [
        () => client.getMailbox('mbx_1'),
        { mailbox, messages: [{ ...summary, size: '1234' }], nextCursor: null, total: 1 },
        'GET /api/emails/{mailboxId}',
        '`/messages/0/size` must be integer',
      ],
      [() => client.listEmails({ includeBody: true }), { messages: [summary], cursor: 'c1' }, 'GET /api/emails?include=body', '`/messages/0/headers` is missing'],
      [() => client.getMessage('mbx_1', 'msg_1'), { message: { ...message, receivedAt: 'yesterday' } }, 'GET /api/emails/{mailboxId}/{messageId}', '`/message/receivedAt` must match format "date-time"'],
      [() => client.listWebhooks(), { webhooks: [{ id: 'wh_1', url: 'http://x.test/', createdAt: mailbox.createdAt }] }, 'GET /api/config/webhooks', '`/webhooks/0/catchAll` is missing'],
      [() => client.health(), { status: 'degraded', version: '9' }, 'GET /health', '`/status`'],
      [() => client.listRefusals(), [], 'GET /api/emails/refusals', '`/` must be object'],
    ];
    for (const [call, answer, endpoint, mismatch] of cases) {
      stub.reply(() => ({ json: answer }));
      const error = (await rejection(call())) as MailwrightError;
      expect(error, endpoint).toBeInstanceOf(MailwrightError);
      expect(error.code, endpoint).toBe('MW_ERR_BAD_RESPONSE');
      expect(error.message).toContain(`not the answer of ${endpoint}: ${mismatch}`);
    }
  });

  test('a problem document with a code this client does not know keeps that code', async ({ stub, client }) => {
    stub.reply(() => problem(409, 'mailbox_frozen', 'The mailbox is frozen'));
    const error = (await rejection(client.expireMailbox('mbx_1'))) as MailwrightApiError;
    expect(error).toBeInstanceOf(MailwrightApiError);
    expect(error.code).toBe('mailbox_frozen');
    expect(error.problem?.detail).toBe('The mailbox is frozen');
    expect(error.message).toContain('409 mailbox_frozen: The mailbox is frozen');
  });

  test('an error body that has a code but not the other problem fields is not read as a problem document', async ({ stub, client }) => {
    stub.reply(() => ({ status: 400, json: { code: 'invalid_request' } }));
    const error = (await rejection(client.getConfig())) as MailwrightApiError;
    expect(error).toBeInstanceOf(MailwrightApiError);
    expect(error.code).toBe('http_400');
    expect(error.problem).toBeUndefined();
    expect(error.detail).toContain('invalid_request');
  });

  test('a bad baseURL is MW_ERR_INVALID_OPTION', () => {
    for (const baseURL of ['not a url', 'ftp://127.0.0.1', 'http://user:pw@127.0.0.1']) {
      expect(() => new MailwrightClient({ baseURL })).toThrow(
        expect.objectContaining({ code: 'MW_ERR_INVALID_OPTION' }) as unknown as Error,
      );
    }
  });
});

// ---- 429 and quota -------------------------------------------------------------------

const QUOTA_HEADERS = {
  'ratelimit-policy': '"monthly";q=10000;w=2592000',
  ratelimit: '"monthly";r=0;t=86400',
};

test.describe('quota', () => {
  test('429 with Retry-After: 1 is waited out and retried', async ({ stub }) => {
    stub.reply((_request, index) =>
      index === 0
        ? problem(429, 'quota_exhausted', 'Monthly quota used up', { headers: { 'retry-after': '1' } })
        : { status: 201, json: mailbox },
    );
    // A fake clock: the wait is recorded, not spent.
    const waits: number[] = [];
    await using client = new MailwrightClient({ baseURL: stub.url, apiKey: API_KEY, sleep: async (ms) => void waits.push(ms) });
    expect(await client.createMailbox({ expiryTime: 3_600_000 })).toEqual(mailbox);
    expect(waits).toEqual([1_000]);
    expect(stub.received).toHaveLength(2);
    expect(stub.received[1]!.body).toBe(stub.received[0]!.body);
  });

  test('429 with a Retry-After beyond maxRetryWait is thrown at once with retryAfter', async ({ stub, client }) => {
    stub.reply(() => problem(429, 'quota_exhausted', 'Monthly quota used up', { headers: { 'retry-after': '86400', ...QUOTA_HEADERS } }));
    const error = (await rejection(client.listEmails())) as MailwrightApiError;
    expect(error).toBeInstanceOf(MailwrightApiError);
    expect(error.code).toBe('quota_exhausted');
    expect(error.status).toBe(429);
    expect(error.retryAfter).toBe(86_400);
    expect(stub.received).toHaveLength(1);
    expect(error.message).toContain('maxRetryWait');
    expect(error.message).toContain('0 of 10000 calls left');
    expect(error.message).toContain('mailwright quota grant');
    expect(client.quota).toEqual({ policy: 'monthly', limit: 10_000, remaining: 0, resetSeconds: 86_400 });
  });

  test('Retry-After as an HTTP-date is read as seconds from now', async ({ stub, client }) => {
    const at = new Date(Date.now() + 3_600_000).toUTCString();
    stub.reply(() => problem(429, 'quota_exhausted', 'Monthly quota used up', { headers: { 'retry-after': at } }));
    const error = (await rejection(client.getConfig())) as MailwrightApiError;
    expect(error.retryAfter).toBeGreaterThan(3_590);
    expect(error.retryAfter).toBeLessThanOrEqual(3_600);
  });

  test('retryOn429: false throws even a short Retry-After', async ({ stub }) => {
    stub.reply(() => problem(429, 'quota_exhausted', 'Monthly quota used up', { headers: { 'retry-after': '1' } }));
    await using client = new MailwrightClient({ baseURL: stub.url, apiKey: API_KEY, retryOn429: false });
    const error = (await rejection(client.getConfig())) as MailwrightApiError;
    expect(error.retryAfter).toBe(1);
    expect(error.message).toContain('retryOn429');
    expect(stub.received).toHaveLength(1);
  });

  test('the retry loop is bounded', async ({ stub, client }) => {
    stub.reply(() => problem(429, 'quota_exhausted', 'Still used up', { headers: { 'retry-after': '0' } }));
    const error = (await rejection(client.getConfig())) as MailwrightApiError;
    expect(error.code).toBe('quota_exhausted');
    expect(error.retryAfter).toBe(0);
    expect(stub.received).toHaveLength(MAX_429_RETRIES + 1);
  });

  test('quota headers of every response update client.quota', async ({ stub, client }) => {
    expect(client.quota).toBeUndefined();
    stub.reply((_request, index): Reply =>
      index === 0
        ? {
            headers: { 'ratelimit-policy': '"monthly";q=10000;w=2592000', ratelimit: '"monthly";r=9998;t=1209600' },
            json: { status: 'ok', version: '0.1.0' },
          }
        : index === 1
          ? { json: { status: 'ok', version: '0.1.0' } }
          : {
              ...problem(404, 'message_not_found', 'gone'),
              headers: { 'ratelimit-policy': '"monthly";q=500;w=2592000', ratelimit: '"monthly";r=7;t=60' },
            },
    );
    await client.health();
    expect(client.quota).toEqual({ policy: 'monthly', limit: 10_000, remaining: 9_998, resetSeconds: 1_209_600 });
    await client.health();
    expect(client.quota?.remaining).toBe(9_998); // a response without quota headers keeps the last state
    await rejection(client.getMessage('mbx_1', 'msg_x'));
    expect(client.quota).toEqual({ policy: 'monthly', limit: 500, remaining: 7, resetSeconds: 60 });
  });
});

// ---- time, abort, close --------------------------------------------------------------

test.describe('lifecycle', () => {
  test('an AbortSignal cancels a request in flight with MW_ERR_ABORTED', async ({ stub, client }) => {
    stub.reply(() => ({ hang: true }));
    const controller = new AbortController();
    const pending = rejection(client.listEmails({ wait: 30, signal: controller.signal }));
    await stub.nextRequest();
    controller.abort(new Error('test is over'));
    const error = (await pending) as MailwrightError;
    expect(error.code).toBe('MW_ERR_ABORTED');
    expect(error.message).toContain('test is over');
  });

  test('an aborted signal also cancels the wait for a 429 retry', async ({ stub, client }) => {
    stub.reply(() => problem(429, 'quota_exhausted', 'used up', { headers: { 'retry-after': '20' } }));
    const controller = new AbortController();
    const pending = rejection(client.getConfig({ signal: controller.signal }));
    await stub.nextRequest();
    controller.abort();
    const error = (await pending) as MailwrightError;
    expect(error.code).toBe('MW_ERR_ABORTED');
    expect(stub.received).toHaveLength(1);
  });

  test('no headers within timeout is MW_ERR_TIMEOUT', async ({ stub }) => {
    await using client = new MailwrightClient({ baseURL: stub.url, apiKey: API_KEY, timeout: 100 });
    stub.reply(() => ({ hang: true }));
    const error = (await rejection(client.getConfig())) as MailwrightError;
    expect(error.code).toBe('MW_ERR_TIMEOUT');
    expect(error.message).toContain('100 ms');
    expect(error.message).toContain('`timeout`');
  });

  test('a long-poll stretches the timeout to wait + 10 s', async ({ stub }) => {
    const seen: Array<{ path: string; headersTimeout?: number | null; bodyTimeout?: number | null }> = [];
    class RecordingAgent extends Agent {
      override dispatch(options: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
        seen.push({ path: options.path, headersTimeout: options.headersTimeout, bodyTimeout: options.bodyTimeout });
        return super.dispatch(options, handler);
      }
    }
    const dispatcher = new RecordingAgent();
    try {
      await using client = new MailwrightClient({ baseURL: stub.url, apiKey: API_KEY, timeout: 100, dispatcher });
      stub.reply(() => ({ json: { messages: [], cursor: 'c1' } }));
      await client.listEmails({ wait: 25 });
      await client.listEmails();
      expect(seen.map((s) => [s.headersTimeout, s.bodyTimeout])).toEqual([
        [35_000, 35_000],
        [100, 100],
      ]);
    } finally {
      await dispatcher.close();
    }
  });

  test('close() is idempotent, disposes, and later calls are MW_ERR_CLIENT_CLOSED', async ({ stub }) => {
    stub.reply(() => ({ json: { status: 'ok', version: '0.1.0' } }));
    const client = new MailwrightClient({ baseURL: stub.url, apiKey: API_KEY });
    await client.health();
    await client.close();
    await client.close();
    await client[Symbol.asyncDispose]();
    const error = (await rejection(client.health())) as MailwrightError;
    expect(error.code).toBe('MW_ERR_CLIENT_CLOSED');
    expect(stub.received).toHaveLength(1);
  });

  test('a dispatcher passed in is used and left open by close()', async ({ stub }) => {
    stub.reply(() => ({ json: { status: 'ok', version: '0.1.0' } }));
    const dispatcher = new Agent();
    try {
      const first = new MailwrightClient({ baseURL: stub.url, dispatcher });
      await first.health();
      await first.close();
      await using second = new MailwrightClient({ baseURL: stub.url, dispatcher });
      expect(await second.health()).toEqual({ status: 'ok', version: '0.1.0' });
    } finally {
      await dispatcher.close();
    }
  });
});
