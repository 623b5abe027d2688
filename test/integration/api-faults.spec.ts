// Fault rules over the HTTP API: adding, listing and clearing a mailbox's rules with the exact
// answer shapes, every bad rule a coded 400 naming its field, another account's or an expired
// mailbox a 404 with its rules untouched, the per-mailbox limit, and the OpenAPI operations.
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { FakeClock } from '../helpers/clock.js';
import { accountWithKey, startTestService, tempDir, type TestService } from './helpers/service.js';

const HOUR = 3_600_000;

let svc: TestService;
let clock: FakeClock;
let aliceKey: string;
let bobKey: string;

test.beforeAll(async () => {
  const data = join(tempDir(), 'mailwright.db');
  // The CLI stamps what it writes with the real time: the service's clock starts there too.
  clock = new FakeClock(Date.now());
  svc = await startTestService({ data }, { clock });
  aliceKey = await accountWithKey(data, 'alice-faults@example.test');
  bobKey = await accountWithKey(data, 'bob-faults@example.test');
});
test.afterAll(async () => {
  await svc.close();
});

async function mailbox(key: string, name: string, expiryTime = HOUR): Promise<{ id: string; email: string }> {
  const res = await svc.api('POST', '/api/emails/generate', { key, body: { name, expiryTime } });
  expect(res.status).toBe(201);
  return res.body;
}

test('add, list and clear: the exact rule shapes, defaults filled in, oldest first', async () => {
  const box = await mailbox(aliceKey, 'faults-roundtrip');
  const path = `/api/emails/${box.id}/faults`;

  const empty = await svc.api('GET', path, { key: aliceKey });
  expect(empty.status).toBe(200);
  expect(empty.body).toEqual({ faults: [] });

  const before = clock.now();
  const greylist = await svc.api('POST', path, { key: aliceKey, body: { at: 'rcpt', code: 451, times: 2 } });
  expect(greylist.status).toBe(201);
  expect(greylist.body).toEqual({
    id: expect.any(String), at: 'rcpt', code: 451, enhancedCode: '4.0.0', times: 2, remaining: 2, probability: 1, hits: 0, createdAt: new Date(before).toISOString(),
  });
  // Rules are listed by creation time; added in the same millisecond, their order is not defined.
  clock.advance(1);

  const full = await svc.api('POST', path, { key: aliceKey, body: { at: 'data', code: 552, enhancedCode: '5.2.2', message: 'Mailbox full', delay: 1500, probability: 0.25 } });
  expect(full.status).toBe(201);
  expect(full.body).toEqual({
    id: expect.any(String), at: 'data', code: 552, enhancedCode: '5.2.2', message: 'Mailbox full', delay: 1500, probability: 0.25, hits: 0, createdAt: new Date(before + 1).toISOString(),
  });
  clock.advance(1);

  const hangUp = await svc.api('POST', path, { key: aliceKey, body: { at: 'rcpt', disconnect: true } });
  expect(hangUp.status).toBe(201);
  expect(hangUp.body).toEqual({ id: expect.any(String), at: 'rcpt', disconnect: true, probability: 1, hits: 0, createdAt: new Date(before + 2).toISOString() });
  expect(new Set([greylist.body.id, full.body.id, hangUp.body.id]).size).toBe(3);

  const listed = await svc.api('GET', path, { key: aliceKey });
  expect(listed.status).toBe(200);
  expect(listed.body).toEqual({ faults: [greylist.body, full.body, hangUp.body] });

  // The mailbox may be named by its address too, as elsewhere in /api/emails.
  const byAddress = await svc.api('GET', `/api/emails/${encodeURIComponent(box.email)}/faults`, { key: aliceKey });
  expect(byAddress.body).toEqual(listed.body);

  const cleared = await svc.api('DELETE', path, { key: aliceKey });
  expect(cleared.status).toBe(204);
  expect(cleared.body).toBe('');
  expect((await svc.api('GET', path, { key: aliceKey })).body).toEqual({ faults: [] });
  // Clearing a mailbox without rules is a 204 too.
  expect((await svc.api('DELETE', path, { key: aliceKey })).status).toBe(204);
});

test('every bad rule is a 400 invalid_request naming its field, and nothing is added', async () => {
  const box = await mailbox(aliceKey, 'faults-bad');
  const path = `/api/emails/${box.id}/faults`;
  const cases: Array<[unknown, string, RegExp]> = [
    [{ at: 'rcpt', code: 250 }, 'code', /400 to 599/],
    [{ at: 'rcpt', code: 600 }, 'code', /400 to 599/],
    [{ at: 'helo', code: 451 }, 'at', /"rcpt".*"data"/],
    [{ code: 451 }, 'at', /needs at/],
    [{ at: 'rcpt', code: 451, probability: 0 }, 'probability', /above 0 and at most 1/],
    [{ at: 'rcpt', code: 451, probability: 2 }, 'probability', /above 0 and at most 1/],
    [{ at: 'data', delay: 600_000 }, 'delay', /1 to 60000/],
    [{ at: 'rcpt' }, 'code', /must do something/],
    [{ at: 'rcpt', code: 421, disconnect: true }, 'disconnect', /drop one of them/],
    [{ at: 'rcpt', code: 451, times: 0 }, 'times', /1 to 1000000/],
    [{ at: 'rcpt', code: 451, colour: 'red' }, 'colour', /not a property of a fault rule/],
    [{ at: 'rcpt', code: 451, enhancedCode: '5.1.1' }, 'enhancedCode', /another class than code 451; start it with 4/],
    [{ at: 'rcpt', code: 451, enhancedCode: '4.x' }, 'enhancedCode', /RFC 3463/],
    [{ at: 'rcpt', delay: 100, message: 'slow' }, 'message', /give code too/],
  ];
  for (const [body, field, detail] of cases) {
    const res = await svc.api('POST', path, { key: aliceKey, body });
    const what = JSON.stringify(body);
    expect(res.status, what).toBe(400);
    expect(res.headers.get('content-type'), what).toContain('application/problem+json');
    expect(res.body, what).toMatchObject({ status: 400, code: 'invalid_request', field });
    expect(res.body.detail, what).toMatch(detail);
  }
  expect((await svc.api('GET', path, { key: aliceKey })).body).toEqual({ faults: [] });
});

test("another account's mailbox is a 404 mailbox_not_found for POST, GET and DELETE, and its rules stay", async () => {
  const bobs = await mailbox(bobKey, 'faults-bob');
  const path = `/api/emails/${bobs.id}/faults`;
  const rule = await svc.api('POST', path, { key: bobKey, body: { at: 'rcpt', code: 550 } });
  expect(rule.status).toBe(201);

  for (const [method, body] of [['POST', { at: 'rcpt', code: 451 }], ['GET', undefined], ['DELETE', undefined]] as const) {
    for (const target of [path, `/api/emails/${encodeURIComponent(bobs.email)}/faults`]) {
      const res = await svc.api(method, target, { key: aliceKey, body });
      expect(res.status, `${method} ${target}`).toBe(404);
      expect(res.body, `${method} ${target}`).toMatchObject({ status: 404, code: 'mailbox_not_found' });
    }
  }
  const unknown = await svc.api('GET', '/api/emails/mbx_doesnotexist/faults', { key: aliceKey });
  expect(unknown.status).toBe(404);
  expect(unknown.body.code).toBe('mailbox_not_found');

  expect((await svc.api('GET', path, { key: bobKey })).body).toEqual({ faults: [rule.body] });
});

test('a mailbox holds at most 20 rules: the 21st is a 400 that says how to clear them', async () => {
  const box = await mailbox(aliceKey, 'faults-limit');
  const path = `/api/emails/${box.id}/faults`;
  for (let i = 1; i <= 20; i++) {
    const res = await svc.api('POST', path, { key: aliceKey, body: { at: i % 2 ? 'rcpt' : 'data', code: 451, times: i } });
    expect(res.status, `rule ${i}`).toBe(201);
    clock.advance(1); // a defined order: rules are listed by creation time
  }
  const over = await svc.api('POST', path, { key: aliceKey, body: { at: 'rcpt', code: 451 } });
  expect(over.status).toBe(400);
  expect(over.body).toMatchObject({ status: 400, code: 'invalid_request' });
  expect(over.body.detail).toContain('20 fault rules');
  expect(over.body.detail).toContain(`DELETE /api/emails/${box.id}/faults`);
  const listed = await svc.api('GET', path, { key: aliceKey });
  expect(listed.body.faults).toHaveLength(20);
  expect(listed.body.faults.map((f: { times: number }) => f.times)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));

  expect((await svc.api('DELETE', path, { key: aliceKey })).status).toBe(204);
  expect((await svc.api('POST', path, { key: aliceKey, body: { at: 'rcpt', code: 451 } })).status).toBe(201);
});

test('an expired mailbox is a 404 for POST, GET and DELETE', async () => {
  const ended = await mailbox(aliceKey, 'faults-ended');
  expect((await svc.api('POST', `/api/emails/${ended.id}/faults`, { key: aliceKey, body: { at: 'rcpt', code: 451 } })).status).toBe(201);
  expect((await svc.api('POST', `/api/emails/${ended.id}/expire`, { key: aliceKey })).status).toBe(200);

  const lapsed = await mailbox(aliceKey, 'faults-lapsed', 60_000);
  expect((await svc.api('POST', `/api/emails/${lapsed.id}/faults`, { key: aliceKey, body: { at: 'data', code: 554 } })).status).toBe(201);
  clock.advance(60_001);

  for (const id of [ended.id, lapsed.id]) {
    for (const [method, body] of [['POST', { at: 'rcpt', code: 451 }], ['GET', undefined], ['DELETE', undefined]] as const) {
      const res = await svc.api(method, `/api/emails/${id}/faults`, { key: aliceKey, body });
      expect(res.status, `${method} ${id}`).toBe(404);
      expect(res.body, `${method} ${id}`).toMatchObject({ status: 404, code: 'mailbox_not_found' });
    }
  }
});

test('the OpenAPI document has the three fault operations, described, with their answers', async () => {
  const doc = await svc.api('GET', '/openapi.json', { key: null });
  expect(doc.status).toBe(200);
  const item = doc.body.paths['/api/emails/{mailboxId}/faults'];
  expect(Object.keys(item).sort()).toEqual(['delete', 'get', 'post']);
  for (const method of ['post', 'get', 'delete']) {
    const op = item[method];
    expect(op.tags, method).toEqual(['emails']);
    expect(op.summary, method).toBeTruthy();
    expect(op.description, method).toContain('one reply per DATA');
    expect(op.description, method).toContain('at most 20 rules');
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), method).toEqual(['path:mailboxId']);
    expect(op.responses['404'], method).toBeTruthy();
  }
  expect(Object.keys(item.post.responses).sort()).toEqual(['201', '400', '401', '403', '404', '429']);
  expect(Object.keys(item.post.requestBody.content['application/json'].schema.properties).sort())
    .toEqual(['at', 'code', 'delay', 'disconnect', 'enhancedCode', 'message', 'probability', 'times']);
  expect(item.get.responses['200']).toBeTruthy();
  expect(item.delete.responses['204']).toBeTruthy();
});
