import { once } from 'node:events';
import { connect } from 'node:net';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { FakeClock } from '../helpers/clock.js';
import { ADMIN_KEY, accountWithKey, cli, lastLine, startTestService, tempDir, type TestService } from './helpers/service.js';

const HOUR = 3_600_000;

test.describe('HTTP API', () => {
  let svc: TestService;
  test.beforeAll(async () => {
    svc = await startTestService();
  });
  test.afterAll(async () => {
    await svc.close();
  });

  test('creates random and custom mailboxes, case-insensitive, with expiry', async () => {
    const random = await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } });
    expect(random.status).toBe(201);
    expect(random.body.email).toMatch(/^[a-z0-9]{12}@mailwright\.test$/);
    expect(Date.parse(random.body.expiresAt) - Date.parse(random.body.createdAt)).toBe(HOUR);

    const custom = await svc.api('POST', '/api/emails/generate', { body: { name: 'Jane.Doe', expiryTime: 86_400_000 } });
    expect(custom.status).toBe(201);
    expect(custom.body).toMatchObject({ email: 'jane.doe@mailwright.test', webhookId: null });

    const taken = await svc.api('POST', '/api/emails/generate', { body: { name: 'JANE.DOE', expiryTime: HOUR } });
    expect(taken.status).toBe(409);
    expect(taken.headers.get('content-type')).toContain('application/problem+json');
    expect(taken.body).toMatchObject({ code: 'address_taken', status: 409, title: 'Address taken' });
    expect(taken.body.detail).toContain('jane.doe@mailwright.test');
  });

  test('validation errors are coded and name the field', async () => {
    const cases: Array<[unknown, string, string]> = [
      [{ expiryTime: 1000 }, 'invalid_request', 'expiryTime'],
      [{}, 'invalid_request', 'expiryTime'],
      [{ expiryTime: HOUR, name: 'a+b' }, 'invalid_request', 'name'],
      [{ expiryTime: HOUR, name: '' }, 'invalid_request', 'name'],
      [{ expiryTime: HOUR, domain: 'elsewhere.test' }, 'unknown_domain', 'domain'],
      [{ expiryTime: HOUR, webhookId: 'wh_nope' }, 'invalid_request', 'webhookId'],
      [{ expiryTime: HOUR, color: 'red' }, 'invalid_request', 'color'],
    ];
    for (const [body, code, field] of cases) {
      const res = await svc.api('POST', '/api/emails/generate', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type'), JSON.stringify(body)).toContain('application/problem+json');
      expect(res.body, JSON.stringify(body)).toMatchObject({ status: 400, code, field });
    }
    const badLimit = await svc.api('GET', '/api/emails?limit=500');
    expect(badLimit.body).toMatchObject({ status: 400, code: 'invalid_request', field: 'limit' });
    const badWait = await svc.api('GET', '/api/emails?wait=31');
    expect(badWait.body).toMatchObject({ code: 'invalid_request', field: 'wait' });
    const badCursor = await svc.api('GET', '/api/emails?after=garbage');
    expect(badCursor.body).toMatchObject({ code: 'invalid_request', field: 'after' });
    const badInclude = await svc.api('GET', '/api/emails?include=attachments');
    expect(badInclude.body).toMatchObject({ code: 'invalid_request', field: 'include' });
  });

  test('authentication: missing and invalid keys', async () => {
    const missing = await svc.api('GET', '/api/emails', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe('missing_api_key');
    const invalid = await svc.api('GET', '/api/emails', { key: 'mw_not_a_key' });
    expect(invalid.status).toBe(401);
    expect(invalid.body.code).toBe('invalid_api_key');
    const health = await svc.api('GET', '/health', { key: null });
    expect(health.status).toBe(200);
    expect(health.body.status).toBe('ok');
  });

  test('oversized request bodies get payload_too_large', async () => {
    const res = await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR, name: 'x'.repeat(2 * 1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  test('a 3 MiB body sent without Expect: 100-continue gets its coded answer, not a reset: the body is read and thrown away, then the connection closes', async () => {
    const { hostname, port } = new URL(svc.httpUrl);
    const body = Buffer.alloc(3 * 1024 * 1024, 'a');
    // Too large (413) and refused before parsing (401): either way the server answers before reading the body.
    for (const [key, status, code] of [[ADMIN_KEY, 413, 'payload_too_large'], ['mw_not_a_key', 401, 'invalid_api_key']] as const) {
      const socket = connect(Number(port), hostname);
      await once(socket, 'connect');
      const received: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => received.push(chunk));
      let failure: Error | undefined;
      socket.on('error', (error) => (failure = error));
      const closed = once(socket, 'close');
      socket.write(`POST /api/emails/generate HTTP/1.1\r\nhost: ${hostname}:${port}\r\ncontent-type: application/json\r\nx-api-key: ${key}\r\ncontent-length: ${body.length}\r\n\r\n`);
      // In pieces, each after the last has left, as a plain client writes: a reset would fail a write.
      for (let at = 0; at < body.length; at += 64 * 1024) {
        if (!socket.write(body.subarray(at, at + 64 * 1024))) await Promise.race([once(socket, 'drain'), closed]);
      }
      await closed;
      expect(failure).toBeUndefined();
      const answer = Buffer.concat(received).toString('utf8');
      expect(answer.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${status === 413 ? 'Payload Too Large' : 'Unauthorized'}`);
      expect(answer.toLowerCase()).toContain('connection: close');
      expect(answer.toLowerCase()).toContain('content-type: application/problem+json');
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status, code });
    }
  });

  test('errors before routing are problem documents with a code too: a path segment over the limit, a webhook host beyond DNS limits', async () => {
    const long = await svc.api('GET', `/api/emails/${'a'.repeat(150)}`);
    expect(long.status).toBe(414);
    expect(long.headers.get('content-type')).toContain('application/problem+json');
    expect(long.body).toMatchObject({ code: 'uri_too_long', status: 414 });
    expect(long.body.detail).toContain('100 characters');
    const host = await svc.api('POST', '/api/config/webhooks', { body: { url: `http://${'a'.repeat(3000)}.example/hook` } });
    expect(host.status).toBe(400);
    expect(host.body).toMatchObject({ code: 'invalid_request', field: 'url' });
  });

  test('unknown routes answer a problem document', async () => {
    const res = await svc.api('GET', '/api/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'not_found', status: 404 });
  });

  test('reads a message with every header, bodies, attachments and raw source', async () => {
    const box = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    await svc.send({
      from: '"Sender Name" <sender@example.test>',
      to: box.email,
      cc: 'someone@example.test',
      subject: 'Grüße — attachments',
      text: 'plain body',
      html: '<p>html <b>body</b></p>',
      headers: { 'X-Repeated': ['one', 'two'] },
      attachments: [{ filename: 'report.csv', content: 'a,b\n1,2\n', contentType: 'text/csv' }, { filename: 'logo.png', content: Buffer.alloc(64, 1), cid: 'logo@x' }],
    });
    const list = await svc.api('GET', `/api/emails/${box.id}`);
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(1);
    const summary = list.body.messages[0];
    expect(summary).toMatchObject({ mailboxId: box.id, mailbox: box.email, subject: 'Grüße — attachments', from: { address: 'sender@example.test', name: 'Sender Name' } });
    const one = await svc.api('GET', `/api/emails/${box.id}/${summary.id}`);
    expect(one.status).toBe(200);
    const m = one.body.message;
    expect(m.text.trim()).toBe('plain body');
    expect(m.html).toContain('<b>body</b>');
    expect(m.cc).toEqual([{ address: 'someone@example.test', name: '' }]);
    expect(m.headers['x-repeated']).toEqual(['one', 'two']);
    expect(m.headers['message-id']).toBeTruthy();
    expect(m.attachments).toEqual(
      expect.arrayContaining([
        { filename: 'report.csv', contentType: 'text/csv', size: 8, contentId: null },
        expect.objectContaining({ filename: 'logo.png', size: 64, contentId: '<logo@x>' }),
      ]),
    );
    const raw = await svc.api('GET', `/api/emails/${box.id}/${summary.id}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toContain('message/rfc822');
    expect(raw.body).toContain('X-Repeated: one');
    expect(raw.body.length).toBe(m.size);
    // by address too
    expect((await svc.api('GET', `/api/emails/${encodeURIComponent(box.email)}`)).body.mailbox.id).toBe(box.id);
    const missing = await svc.api('GET', `/api/emails/${box.id}/msg_nope`);
    expect(missing.body.code).toBe('message_not_found');
    expect((await svc.api('GET', '/api/emails/mbx_nope')).body.code).toBe('mailbox_not_found');
  });

  test('mailbox listing pages newest first with a cursor', async () => {
    const box = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    for (let i = 1; i <= 5; i++) await svc.send({ from: 'a@example.test', to: box.email, subject: `n${i}`, text: 'x' });
    const first = await svc.api('GET', `/api/emails/${box.id}?limit=2`);
    expect(first.body.messages.map((m: any) => m.subject)).toEqual(['n5', 'n4']);
    expect(first.body.total).toBe(5);
    const second = await svc.api('GET', `/api/emails/${box.id}?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.messages.map((m: any) => m.subject)).toEqual(['n3', 'n2']);
    const third = await svc.api('GET', `/api/emails/${box.id}?limit=2&cursor=${second.body.nextCursor}`);
    expect(third.body.messages.map((m: any) => m.subject)).toEqual(['n1']);
    expect(third.body.nextCursor).toBeNull();
  });

  test('batched poll: oldest first, cursor only moves forward, mailbox filter, include=body', async () => {
    const a = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    const b = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    const c = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    const start = await svc.api('GET', `/api/emails?mailbox=${a.id}&mailbox=${b.email}`);
    expect(start.body.messages).toEqual([]);
    await svc.send({ from: 'x@example.test', to: a.email, subject: 'to-a', text: 'a' });
    await svc.send({ from: 'x@example.test', to: c.email, subject: 'to-c', text: 'c' });
    await svc.send({ from: 'x@example.test', to: b.email, subject: 'to-b', text: 'b' });
    const batch = await svc.api('GET', `/api/emails?mailbox=${a.id}&mailbox=${b.email}&after=${start.body.cursor}`);
    expect(batch.body.messages.map((m: any) => m.subject)).toEqual(['to-a', 'to-b']);
    expect(batch.body.messages[0].text).toBeUndefined();
    const again = await svc.api('GET', `/api/emails?mailbox=${a.id}&mailbox=${b.id}&after=${batch.body.cursor}`);
    expect(again.body.messages).toEqual([]);
    const withBody = await svc.api('GET', `/api/emails?mailbox=${c.id}&include=body&limit=1`);
    expect(withBody.body.messages[0]).toMatchObject({ subject: 'to-c', text: expect.stringContaining('c'), headers: expect.any(Object) });
    const unknown = await svc.api('GET', `/api/emails?mailbox=${a.id}&mailbox=nobody@mailwright.test`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('mailbox_not_found');
    expect(unknown.body.detail).toContain('nobody@mailwright.test');
  });

  test('long-poll answers as soon as a message is committed', async () => {
    const box = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    const start = await svc.api('GET', `/api/emails?mailbox=${box.id}`);
    let answeredAt = 0;
    const poll = svc.api('GET', `/api/emails?mailbox=${box.id}&after=${start.body.cursor}&wait=20&include=body`).then((r) => {
      answeredAt = Date.now();
      return r;
    });
    const info = await svc.send({ from: 'x@example.test', to: box.email, subject: 'wake up', text: 'now' });
    const acknowledgedAt = Date.now();
    const res = await poll;
    expect(info.response).toMatch(/^250 /);
    expect(res.body.messages.map((m: any) => m.subject)).toEqual(['wake up']);
    // The poll is answered on commit, which happens before the SMTP client sees 250.
    expect(answeredAt - acknowledgedAt).toBeLessThan(1_000);
  });

  test('a long-poll woken by a message answers what reading the store answers, with and without bodies', async () => {
    // The poll waits (its request reaches the service long before the SMTP conversation ends)
    // and answers from the commit that woke it; the same page read afterwards comes from the store.
    const box = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    const shapes = [
      { subject: 'one line', text: 'Your code is 123456' },
      { subject: 'text and html', text: 'Verify: https://app.example.test/v?t=1', html: '<p><a href="https://app.example.test/v?t=1">Verify</a> caf\u00e9</p>' },
      { subject: 'names and copies', from: '"App Team" <team@example.test>', cc: ['Watcher <watch@example.test>', 'other@example.test'], text: 'x' },
      { subject: 'with a file', text: 'see the file', attachments: [{ filename: 'notes.txt', content: 'hello' }] },
    ];
    for (const include of ['&include=body', '']) {
      for (const shape of shapes) {
        const { cursor } = (await svc.api('GET', `/api/emails?mailbox=${box.id}&limit=100`)).body;
        const poll = svc.api('GET', `/api/emails?mailbox=${box.id}&after=${cursor}&wait=20${include}`);
        await svc.send({ from: 'app@example.test', to: box.email, ...shape });
        const woken = (await poll).body;
        expect(woken.messages.map((m: any) => m.subject)).toEqual([shape.subject]);
        expect(woken).toEqual((await svc.api('GET', `/api/emails?mailbox=${box.id}&after=${cursor}${include}`)).body);
      }
    }
  });

  test('long-poll with nothing arriving returns an empty page with a usable cursor', async () => {
    const box = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
    const res = await svc.api('GET', `/api/emails?mailbox=${box.id}&wait=0.3`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ messages: [], cursor: expect.any(String) });
    await svc.send({ from: 'x@example.test', to: box.email, subject: 'later', text: 'x' });
    const next = await svc.api('GET', `/api/emails?mailbox=${box.id}&after=${res.body.cursor}`);
    expect(next.body.messages.map((m: any) => m.subject)).toEqual(['later']);
  });

  test('GET /api/config reports domains, limits and quota', async () => {
    const res = await svc.api('GET', '/api/config');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ domains: ['mailwright.test'], role: 'emperor', minExpiryTime: 60000, expiryOptions: [3600000, 86400000, 259200000] });
    expect(res.body.quota.period).toMatch(/^\d{4}-\d{2}$/);
    expect(res.headers.get('ratelimit-policy')).toMatch(/^"monthly";q=\d+;w=\d+$/);
    expect(res.headers.get('ratelimit')).toMatch(/^"monthly";r=\d+;t=\d+$/);
  });

  test('OpenAPI document and docs are served', async () => {
    const doc = await svc.api('GET', '/openapi.json', { key: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    for (const path of ['/api/emails/generate', '/api/emails', '/api/emails/{mailboxId}', '/api/emails/{mailboxId}/{messageId}', '/api/emails/{mailboxId}/{messageId}/raw', '/api/config', '/api/config/webhooks', '/api/config/webhooks/{id}', '/api/config/webhooks/{id}/test', '/api/config/webhooks/{id}/deliveries', '/api/config/quota/redeem', '/health']) {
      expect(Object.keys(doc.body.paths)).toContain(path);
    }
    expect(doc.body.paths['/api/emails/generate'].post.responses['409']).toBeTruthy();
    const docs = await fetch(`${svc.httpUrl}/docs`);
    expect(docs.status).toBe(200);
  });
});

test.describe('accounts, scopes and quota', () => {
  test('scopes, cross-account isolation, quota exhaustion, top-ups and monthly reset', async () => {
    const dir = tempDir();
    const data = join(dir, 'store.db');
    // The CLI stamps what it writes with the real time: the service's clock starts there too.
    const clock = new FakeClock(Date.now());
    const svc = await startTestService({ data, quota: { civilian: 6 } }, { clock });
    try {
      const emailsOnly = await accountWithKey(data, 'emails-only@example.test', { scopes: 'emails' });
      const configOnly = lastLine(await cli('keys', 'create', '--email', 'emails-only@example.test', '--scopes', 'config', '--data', data));
      const denied = await svc.api('GET', '/api/config', { key: emailsOnly });
      expect(denied.status).toBe(403);
      expect(denied.body.code).toBe('scope_denied');
      expect(denied.body.detail).toContain('config');
      expect((await svc.api('POST', '/api/emails/generate', { key: configOnly, body: { expiryTime: HOUR } })).body.code).toBe('scope_denied');

      // Another account's mailbox and message are 404, never 403.
      const own = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
      await svc.send({ from: 'x@example.test', to: own.email, subject: 'private', text: 'x' });
      const msgId = (await svc.api('GET', `/api/emails/${own.id}`)).body.messages[0].id;
      const foreign = await svc.api('GET', `/api/emails/${own.id}`, { key: emailsOnly });
      expect(foreign.status).toBe(404);
      expect(foreign.body.code).toBe('mailbox_not_found');
      expect((await svc.api('GET', `/api/emails/${own.id}/${msgId}`, { key: emailsOnly })).status).toBe(404);
      expect((await svc.api('GET', `/api/emails/${own.id}/${msgId}/raw`, { key: emailsOnly })).status).toBe(404);
      expect((await svc.api('GET', `/api/emails?mailbox=${own.id}`, { key: emailsOnly })).status).toBe(404);
      expect((await svc.api('GET', '/api/emails', { key: emailsOnly })).body.messages).toEqual([]);

      // Quota: civilian allowance is 6 calls; the calls above used 5 (the 403s did not count).
      const sixth = await svc.api('GET', '/api/emails', { key: emailsOnly });
      expect(sixth.status).toBe(200);
      expect(sixth.headers.get('ratelimit-policy')).toMatch(/^"monthly";q=6;w=\d+$/);
      expect(sixth.headers.get('ratelimit')).toMatch(/^"monthly";r=0;t=\d+$/);
      const exhausted = await svc.api('GET', '/api/emails', { key: emailsOnly });
      expect(exhausted.status).toBe(429);
      expect(exhausted.body.code).toBe('quota_exhausted');
      expect(exhausted.headers.get('ratelimit-policy')).toMatch(/^"monthly";q=6;w=\d+$/);
      expect(exhausted.headers.get('ratelimit')).toMatch(/^"monthly";r=0;t=\d+$/);
      const retryAfter = Number(exhausted.headers.get('retry-after'));
      const now = new Date(clock.now());
      const reset = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
      expect(Math.abs(retryAfter - (reset - clock.now()) / 1000)).toBeLessThan(5);

      // A redeemed top-up raises this month's allowance (the config key has the same account).
      const code = lastLine(await cli('quota', 'code', '--calls', '3', '--data', data));
      const bad = await svc.api('POST', '/api/config/quota/redeem', { key: configOnly, body: { code: 'MW-NOPE' } });
      // Redeeming is never refused for an exhausted quota, or a top-up could not be applied.
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'redeem_code_invalid', field: 'code' });
      const redeem = await svc.api('POST', '/api/config/quota/redeem', { key: configOnly, body: { code: code.toLowerCase() } });
      expect(redeem.status).toBe(200);
      expect(redeem.body).toMatchObject({ calls: 3, quota: { allowance: 9, topUps: 3, used: 6 } });
      expect(redeem.headers.get('ratelimit')).toMatch(/^"monthly";r=3;/);
      const reused = await svc.api('POST', '/api/config/quota/redeem', { key: configOnly, body: { code } });
      expect(reused.body.code).toBe('redeem_code_invalid'); // counted: the quota had room again
      for (let i = 0; i < 2; i++) expect((await svc.api('GET', '/api/emails', { key: emailsOnly })).status).toBe(200);
      expect((await svc.api('GET', '/api/emails', { key: emailsOnly })).status).toBe(429);
      // An admin grant (a purchased top-up) raises it too.
      await cli('quota', 'grant', '--email', 'emails-only@example.test', '--calls', '2', '--data', data);
      for (let i = 0; i < 2; i++) expect((await svc.api('GET', '/api/emails', { key: emailsOnly })).status).toBe(200);
      expect((await svc.api('GET', '/api/emails', { key: emailsOnly })).status).toBe(429);

      // Next calendar month: the allowance resets.
      clock.advance(retryAfter * 1000 + 1000);
      const afterReset = await svc.api('GET', '/api/emails', { key: emailsOnly });
      expect(afterReset.status).toBe(200);
      expect(afterReset.headers.get('ratelimit')).toMatch(/^"monthly";r=5;/);

      // Revoked keys stop working.
      const keyId = (await cli('keys', 'create', '--email', 'emails-only@example.test', '--data', data)).match(/key_[a-z0-9]+/)![0];
      await cli('keys', 'revoke', keyId, '--data', data);
      await expect(cli('keys', 'revoke', keyId, '--data', data)).rejects.toThrow(/no live key/);
    } finally {
      await svc.close();
    }
  });

  test('mailbox limit per role', async () => {
    const dir = tempDir();
    const data = join(dir, 'store.db');
    const svc = await startTestService({ data, roles: { civilian: { maxMailboxes: 2 } } });
    try {
      const key = await accountWithKey(data, 'small@example.test');
      expect((await svc.api('POST', '/api/emails/generate', { key, body: { expiryTime: HOUR } })).status).toBe(201);
      expect((await svc.api('POST', '/api/emails/generate', { key, body: { expiryTime: HOUR } })).status).toBe(201);
      const third = await svc.api('POST', '/api/emails/generate', { key, body: { expiryTime: HOUR } });
      expect(third.status).toBe(403);
      expect(third.body.code).toBe('mailbox_limit');
      // The live count, the cap and the ways out.
      expect(third.body.detail).toContain('has 2 live mailboxes and role civilian allows 2 at once');
      expect(third.body.detail).toContain('POST /api/emails/{id}/expire');
      expect(third.body.detail).toContain('shorter expiryTime');
      const tooLong = await svc.api('POST', '/api/emails/generate', { key, body: { expiryTime: 30 * 86_400_000 } });
      expect(tooLong.body).toMatchObject({ code: 'invalid_request', field: 'expiryTime' });
    } finally {
      await svc.close();
    }
  });
});

test.describe('expiry', () => {
  test('expiring a mailbox early: gone at once for the API and SMTP, off the live count, only for its owner', async () => {
    const dir = tempDir();
    const data = join(dir, 'store.db');
    const svc = await startTestService({ data, roles: { civilian: { maxMailboxes: 1 } } });
    try {
      const key = await accountWithKey(data, 'ender@example.test');
      const box = (await svc.api('POST', '/api/emails/generate', { key, body: { name: 'ends-early', expiryTime: HOUR } })).body;
      // Another account cannot end it.
      expect((await svc.api('POST', `/api/emails/${box.id}/expire`)).body.code).toBe('mailbox_not_found');
      const ended = await svc.api('POST', `/api/emails/${box.email.toUpperCase()}/expire`, { key });
      expect(ended.status).toBe(200);
      expect(ended.body).toMatchObject({ id: box.id, email: box.email });
      expect(Date.parse(ended.body.expiresAt)).toBeLessThanOrEqual(Date.now());
      expect((await svc.api('GET', `/api/emails/${box.id}`, { key })).body.code).toBe('mailbox_not_found');
      await expect(svc.send({ from: 'x@example.test', to: box.email, subject: 'after', text: 'x' })).rejects.toMatchObject({ responseCode: 550 });
      // No longer counted: the one-mailbox role can make another at once.
      expect((await svc.api('POST', '/api/emails/generate', { key, body: { expiryTime: HOUR } })).status).toBe(201);
      expect((await svc.api('POST', `/api/emails/${box.id}/expire`, { key })).body.code).toBe('mailbox_not_found');
    } finally {
      await svc.close();
    }
  });

  test('an expired mailbox is gone at once for the API and SMTP, and its address is free again', async () => {
    const clock = new FakeClock();
    const svc = await startTestService({ sweepIntervalMs: 60 * 60_000 }, { clock });
    try {
      const box = (await svc.api('POST', '/api/emails/generate', { body: { name: 'shortlived', expiryTime: 60_000 } })).body;
      await svc.send({ from: 'x@example.test', to: box.email, subject: 'before expiry', text: 'x' });
      const msg = (await svc.api('GET', `/api/emails/${box.id}`)).body.messages[0];
      clock.advance(61_000);
      expect((await svc.api('GET', `/api/emails/${box.id}`)).body.code).toBe('mailbox_not_found');
      expect((await svc.api('GET', `/api/emails/${box.id}/${msg.id}`)).status).toBe(404);
      expect((await svc.api('GET', '/api/emails')).body.messages.map((m: any) => m.id)).not.toContain(msg.id);
      await expect(svc.send({ from: 'x@example.test', to: box.email, subject: 'after', text: 'x' })).rejects.toMatchObject({ responseCode: 550 });
      // The address is free again at once.
      const again = await svc.api('POST', '/api/emails/generate', { body: { name: 'shortlived', expiryTime: HOUR } });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(box.id);
      expect((await svc.api('GET', `/api/emails/${again.body.id}`)).body.total).toBe(0);
    } finally {
      await svc.close();
    }
  });
});

test('admin key from --api-key is idempotent across restarts', async () => {
  const data = join(tempDir(), 'store.db');
  const first = await startTestService({ data });
  await first.close();
  const second = await startTestService({ data });
  try {
    expect(second.apiKey).toBe(ADMIN_KEY);
    expect((await second.api('GET', '/api/config')).status).toBe(200);
  } finally {
    await second.close();
  }
});

test.describe('refusals', () => {
  test('each refusal has its own 550 text, is kept, and is shown to an admin in full and to others only for their own mailboxes', async () => {
    const dir = tempDir();
    const data = join(dir, 'store.db');
    const svc = await startTestService({ data });
    try {
      const key = await accountWithKey(data, 'refused@example.test');
      const own = (await svc.api('POST', '/api/emails/generate', { key, body: { expiryTime: HOUR } })).body;
      const others = (await svc.api('POST', '/api/emails/generate', { body: { expiryTime: HOUR } })).body;
      for (const box of [own, others]) expect((await svc.api('POST', `/api/emails/${box.id}/expire`, { key: box === own ? key : undefined })).status).toBe(200);
      const replies: string[] = [];
      for (const to of [own.email, others.email, 'nobody@mailwright.test', 'alice@exmaple.com']) {
        const error = await svc.send({ from: 'app@example.test', to, subject: 'x', text: 'x' }).then(() => undefined, (e: { responseCode: number; response: string }) => e);
        expect(error?.responseCode, to).toBe(550);
        replies.push(error!.response);
      }
      expect(replies[0]).toMatch(new RegExp(`^550 5\\.1\\.1 <${own.email}>: this mailbox expired at \\d{4}-`));
      expect(replies[2]).toBe('550 5.1.1 <nobody@mailwright.test>: no such mailbox here; create it first with POST /api/emails/generate');
      expect(replies[3]).toBe('550 5.1.1 <alice@exmaple.com>: this service does not serve the domain exmaple.com (it serves mailwright.test); check the address the mail was sent to');

      const admin = await svc.api('GET', '/api/emails/refusals');
      expect(admin.status).toBe(200);
      expect(admin.body.refusals.map((r: any) => [r.address, r.reason, r.from])).toEqual([
        [own.email, 'expired_mailbox', 'app@example.test'],
        [others.email, 'expired_mailbox', 'app@example.test'],
        ['nobody@mailwright.test', 'unknown_mailbox', 'app@example.test'],
        ['alice@exmaple.com', 'unserved_domain', 'app@example.test'],
      ]);
      expect(admin.body.refusals.map((r: any) => r.reply)).toEqual(replies);
      // Any other key: only its own mailboxes' refusals, never another account's traffic.
      const mine = await svc.api('GET', '/api/emails/refusals', { key });
      expect(mine.body.refusals.map((r: any) => r.address)).toEqual([own.email]);
      const later = new Date(Date.now() + 60_000).toISOString();
      expect((await svc.api('GET', `/api/emails/refusals?since=${later}`)).body.refusals).toEqual([]);
      expect((await svc.api('GET', '/api/emails/refusals?since=yesterday')).body.code).toBe('invalid_request');
    } finally {
      await svc.close();
    }
  });
});
