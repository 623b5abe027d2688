// The web UI in front of an attacker: input that must not end the process, sign-in limits that
// do not lock the owner out, proxies believed only when named, sign-in links that die with a
// password change, and live streams that end with their session. Clients come from real
// sockets, some from a second loopback address.
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { buildApi } from '../../src/server/api/app.js';
import { systemClock } from '../../src/server/context.js';
import { openSqliteStore } from '../../src/server/store/sqlite.js';
import type { Store } from '../../src/server/store/store.js';
import { nextPath } from '../../src/server/web/routes/sign-in.js';
import { testContext } from '../helpers/service-context.js';
import { spawnServe } from './helpers/serve-process.js';
import { cli, lastLine, startTestService, tempDir, type TestService } from './helpers/service.js';
import { WebClient } from './helpers/web-client.js';

const PASSWORD = 'correct horse battery staple';
const OTHER_ADDRESS = '127.0.0.2';

async function person(service: { data: string }, email: string): Promise<void> {
  await cli('accounts', 'create', '--email', email, '--password', PASSWORD, '--data', service.data);
}

async function fileService(options: Parameters<typeof startTestService>[0] = {}): Promise<TestService> {
  return startTestService({ data: join(tempDir('mailwright-hostile-'), 'mailwright.db'), ...options });
}

test('next is a path of this site only: printable ASCII, one leading slash', () => {
  for (const good of ['/', '/mailboxes', '/mailboxes/abc?x=1&y=%2F', '/profile#keys']) expect(nextPath(good)).toBe(good);
  for (const bad of ['/\n', '/\u0100', '/\t/evil.example/x', '//evil.example', '/\\evil.example', '/ /x', 'https://evil.example/', 'mailboxes', '', undefined, ['/x']]) {
    expect(nextPath(bad), JSON.stringify(bad)).toBe('/mailboxes');
  }
});

test('no sign-in request ends the process: crafted next values redirect home, and the service still serves HTTP and SMTP', async () => {
  const data = join(tempDir('mailwright-hostile-'), 'mailwright.db');
  await person({ data }, 'owner@example.com');
  const serve = await spawnServe(['--data', data]);
  try {
    for (const next of ['%2F%0A', '%2F%C4%80', '/%09/evil.example/x', '%2F%2Fevil.example', '%2F%5Cevil.example', '%2F%0D%0ASet-Cookie:%20x=1']) {
      const client = new WebClient(serve.httpUrl);
      const res = await client.signIn('owner@example.com', PASSWORD, next);
      expect(res.status, next).toBe(303);
      expect(res.headers.get('location'), next).toBe('/mailboxes');
      await client.close();
    }
    const health = await fetch(serve.httpUrl + '/health');
    expect(health.status).toBe(200);
    expect(serve.child.exitCode).toBeNull();
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
});

test('an error thrown inside the session store is answered as a 500, and the next request is served', async () => {
  const store = openSqliteStore(':memory:');
  let fault: 'throw' | 'reject' | null = null;
  const faulty: Store = new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (name !== 'saveSession' && name !== 'getSession') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        if (fault === 'throw') throw new Error('the session store failed (thrown)');
        if (fault === 'reject') return Promise.reject(new Error('the session store failed (rejected)'));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  const app = await buildApi(testContext(faulty, systemClock, { logLevel: 'silent' }));
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { createAccount } = await import('../../src/server/auth/accounts.js');
    await createAccount(store, ['civilian'], { email: 'owner@example.com', password: PASSWORD, now: Date.now() });
    for (const kind of ['throw', 'reject'] as const) {
      const client = new WebClient(url);
      const { html } = await client.page('/');
      const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1]!;
      fault = kind;
      const res = await client.request('POST', '/sign-in', new URLSearchParams({ email: 'owner@example.com', password: PASSWORD, _csrf: csrf }));
      expect(res.status, kind).toBe(500);
      fault = null;
      expect((await client.signIn('owner@example.com', PASSWORD)).status, kind).toBe(303);
      expect((await client.page('/mailboxes')).status).toBe(200);
      await client.close();
    }
  } finally {
    await app.close();
    await store.close();
  }
});

test('failed sign-ins from one address never lock the owner out from another; an address is limited whatever the account', async () => {
  const service = await fileService();
  try {
    await person(service, 'owner@example.com');
    await person(service, 'other@example.com');
    const attacker = new WebClient(service.httpUrl, { localAddress: OTHER_ADDRESS });
    for (let i = 0; i < 5; i++) expect((await attacker.signIn('owner@example.com', `wrong ${i}`)).status).toBe(401);
    const limited = await attacker.signIn('owner@example.com', PASSWORD);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await limited.text()).toContain('this account from your address');
    // The owner, elsewhere, signs in.
    const owner = new WebClient(service.httpUrl);
    expect((await owner.signIn('owner@example.com', PASSWORD)).status).toBe(303);
    // 20 failures from one address, spread over accounts, stop that address for every account, the others not.
    for (let i = 0; i < 15; i++) expect((await attacker.signIn(`nobody${i}@example.com`, 'wrong password')).status).toBe(401);
    const blocked = await attacker.signIn('other@example.com', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(await blocked.text()).toContain('your address');
    expect((await new WebClient(service.httpUrl).signIn('other@example.com', PASSWORD)).status).toBe(303);
    await attacker.close();
    await owner.close();
  } finally {
    await service.close();
  }
});

test('the failure counts live in the store: a restart keeps them', async () => {
  const first = await fileService();
  await person(first, 'owner@example.com');
  const attacker = () => new WebClient(first.httpUrl, { localAddress: OTHER_ADDRESS });
  for (let i = 0; i < 5; i++) expect((await attacker().signIn('owner@example.com', `wrong ${i}`)).status).toBe(401);
  await first.close();
  const second = await startTestService({ data: first.data });
  try {
    expect((await new WebClient(second.httpUrl, { localAddress: OTHER_ADDRESS }).signIn('owner@example.com', PASSWORD)).status).toBe(429);
    expect((await new WebClient(second.httpUrl).signIn('owner@example.com', PASSWORD)).status).toBe(303);
  } finally {
    await second.close();
  }
});

test('X-Forwarded-* is ignored unless --trust-proxy names the proxy; behind a trusted https proxy the session cookie is Secure', async () => {
  const plain = await fileService();
  try {
    await person(plain, 'owner@example.com');
    // Spoofed addresses do not spread an attacker's failures: all count against the socket's address.
    for (let i = 0; i < 5; i++) {
      const spoofing = new WebClient(plain.httpUrl, { localAddress: OTHER_ADDRESS, headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      expect((await spoofing.signIn('owner@example.com', `wrong ${i}`)).status).toBe(401);
    }
    expect((await new WebClient(plain.httpUrl, { localAddress: OTHER_ADDRESS }).signIn('owner@example.com', PASSWORD)).status).toBe(429);
    const https = new WebClient(plain.httpUrl, { headers: { 'x-forwarded-proto': 'https' } });
    expect((await https.signIn('owner@example.com', PASSWORD)).status).toBe(303);
    expect(https.lastSetCookies.find((c) => c.startsWith('mw_session='))).not.toMatch(/;\s*Secure/i);
  } finally {
    await plain.close();
  }

  const proxied = await fileService({ trustProxy: '127.0.0.1' });
  try {
    await person(proxied, 'owner@example.com');
    const https = new WebClient(proxied.httpUrl, { headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.7' } });
    expect((await https.signIn('owner@example.com', PASSWORD)).status).toBe(303);
    expect(https.lastSetCookies.find((c) => c.startsWith('mw_session='))).toMatch(/;\s*Secure/i);
    // Each forwarded client is counted on its own; the proxy's address is not everyone's.
    for (let i = 0; i < 5; i++) {
      const far = new WebClient(proxied.httpUrl, { headers: { 'x-forwarded-for': '198.51.100.9' } });
      expect((await far.signIn('owner@example.com', `wrong ${i}`)).status).toBe(401);
    }
    expect((await new WebClient(proxied.httpUrl, { headers: { 'x-forwarded-for': '198.51.100.9' } }).signIn('owner@example.com', PASSWORD)).status).toBe(429);
    expect((await new WebClient(proxied.httpUrl, { headers: { 'x-forwarded-for': '198.51.100.10' } }).signIn('owner@example.com', PASSWORD)).status).toBe(303);
    // A proxy that is not the named one is not believed.
    const stranger = new WebClient(proxied.httpUrl, { localAddress: OTHER_ADDRESS, headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.10' } });
    expect((await stranger.signIn('owner@example.com', PASSWORD)).status).toBe(303);
    expect(stranger.lastSetCookies.find((c) => c.startsWith('mw_session='))).not.toMatch(/;\s*Secure/i);
  } finally {
    await proxied.close();
  }
});

test('a sign-in link made before a password change no longer signs in', async () => {
  const service = await fileService();
  try {
    await person(service, 'owner@example.com');
    const link = lastLine(await cli('accounts', 'sign-in-link', '--email', 'owner@example.com', '--data', service.data)).replace(/^https?:\/\/[^/]+/, '');
    const owner = new WebClient(service.httpUrl);
    expect((await owner.signIn('owner@example.com', PASSWORD)).status).toBe(303);
    expect((await owner.post('/profile/password', { current: PASSWORD, password: 'a brand new passphrase' }, '/profile')).status).toBe(303);
    const thief = new WebClient(service.httpUrl, { localAddress: OTHER_ADDRESS });
    const used = await thief.page(link);
    expect(used.status).toBe(410);
    expect((await thief.page('/mailboxes')).status).toBe(303);
  } finally {
    await service.close();
  }
});

/** Reads a server-sent event stream until the server ends it, telling `onChunk` all that came so far. */
async function readStream(body: AsyncIterable<Uint8Array>, onChunk: (text: string) => void): Promise<string> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    onChunk(text);
  }
  return text;
}

for (const ending of ['sign-out', 'password change elsewhere'] as const) {
  test(`a live arrival stream ends with its session (${ending}), and shows nothing sent after`, async () => {
    const service = await fileService();
    try {
      await person(service, 'owner@example.com');
      const key = lastLine(await cli('keys', 'create', '--email', 'owner@example.com', '--data', service.data));
      const box = await service.api('POST', '/api/emails/generate', { key, body: { expiryTime: 3_600_000 } });
      const viewer = new WebClient(service.httpUrl);
      expect((await viewer.signIn('owner@example.com', PASSWORD)).status).toBe(303);
      const stream = await viewer.request('GET', `/mailboxes/${box.body.id}/events?after=0`);
      expect(stream.status).toBe(200);
      let sawFirst: () => void = () => {};
      const first = new Promise<void>((resolve) => (sawFirst = resolve));
      const all = readStream(stream.body as unknown as AsyncIterable<Uint8Array>, (text) => text.includes('before the end') && sawFirst());
      await service.send({ from: 'app@example.com', to: box.body.email, subject: 'before the end', text: 'one' });
      await first;
      if (ending === 'sign-out') {
        expect((await viewer.post('/sign-out', {}, '/profile')).status).toBe(303);
      } else {
        const elsewhere = new WebClient(service.httpUrl, { localAddress: OTHER_ADDRESS });
        expect((await elsewhere.signIn('owner@example.com', PASSWORD)).status).toBe(303);
        expect((await elsewhere.post('/profile/password', { current: PASSWORD, password: 'a brand new passphrase' }, '/profile')).status).toBe(303);
      }
      await service.send({ from: 'app@example.com', to: box.body.email, subject: 'after the end', text: 'two' });
      const text = await all; // ends: the server closed the stream
      expect(text).toContain('before the end');
      expect(text).not.toContain('after the end');
    } finally {
      await service.close();
    }
  });
}
