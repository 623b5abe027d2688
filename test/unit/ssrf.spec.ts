// Unit tests of the SSRF guard: which webhook URLs are refused, with which code and words,
// and the connect-time DNS check that stops names resolving to private addresses.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test, expect } from '@playwright/test';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { generateWebhookSecret } from '../../src/protocol/index.js';
import { FakeClock } from '../helpers/clock.js';
import { testConfig } from '../helpers/service-context.js';
import { createWebhookClient, postWebhook } from '../../src/server/delivery/attempt.js';
import {
  PrivateAddressError,
  WebhookUrlError,
  assertWebhookUrlAllowed,
  checkWebhookUrl,
  guardedLookup,
  isLoopbackHost,
  privateWebhooksAllowed,
} from '../../src/server/delivery/ssrf.js';
import type { WebhookRecord } from '../../src/server/store/store.js';

const PUBLIC = { allowPrivate: false };

function refusal(url: string) {
  try {
    assertWebhookUrlAllowed(url, PUBLIC);
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookUrlError);
    return error as WebhookUrlError;
  }
  return null;
}

test.describe('assertWebhookUrlAllowed', () => {
  const privateTargets = [
    'http://127.0.0.1/hook',
    'http://127.8.9.10:8080/hook',
    'http://0.0.0.0/',
    'http://0.1.2.3/',
    'http://10.0.0.1/',
    'http://10.255.255.255/',
    'http://172.16.0.1/',
    'http://172.31.255.254/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://100.127.255.254/',
    'http://169.254.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[::1]/',
    'http://[::]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd12:3456:789a::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://localhost/',
    'http://LOCALHOST:3000/',
    'http://localhost./',
    'http://api.localhost/',
    'http://metadata.google.internal/computeMetadata/v1/',
    // Alternative spellings the URL parser normalises to 127.0.0.1.
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
  ];
  for (const url of privateTargets) {
    test(`refuses ${url}`, () => {
      const error = refusal(url);
      expect(error, `${url} should be refused`).not.toBeNull();
      expect(error!.code).toBe('MW_ERR_WEBHOOK_URL_PRIVATE');
      expect(error!.url).toBe(url);
      expect(error!.message).toContain(url);
      expect(error!.message).toContain('--allow-private-webhooks');
      expect(error!.message).toContain('loopback host');
    });
  }

  test('names the rule that refused the address', () => {
    expect(refusal('http://169.254.169.254/')!.rule).toContain('metadata');
    expect(refusal('http://10.1.2.3/')!.rule).toContain('RFC 1918');
    expect(refusal('http://100.64.1.1/')!.rule).toContain('carrier-grade NAT');
    expect(refusal('http://[fd00::1]/')!.rule).toContain('unique-local');
    expect(refusal('http://[fe80::1]/')!.rule).toContain('link-local');
    expect(refusal('http://127.0.0.1/')!.rule).toContain('loopback');
    expect(refusal('http://localhost/')!.rule).toBe('localhost');
    expect(refusal('http://10.1.2.3/')!.message).toMatch(/^webhook URL http:\/\/10\.1\.2\.3\/ targets 10\.1\.2\.3, a private network/);
  });

  const publicTargets = [
    'https://example.com/hooks/mail',
    'http://93.184.216.34/hook',
    'https://8.8.8.8/',
    'http://172.15.255.255/',
    'http://172.32.0.1/',
    'http://100.63.255.255/',
    'http://100.128.0.1/',
    'http://192.169.0.1/',
    'http://[2606:4700:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'https://hooks.example.org:8443/x?y=1',
    'http://localhost.example.com/',
  ];
  for (const url of publicTargets) {
    test(`allows ${url}`, () => {
      expect(() => assertWebhookUrlAllowed(url, PUBLIC)).not.toThrow();
    });
  }

  test('allows private and loopback targets when private targets are allowed', () => {
    for (const url of privateTargets) expect(checkWebhookUrl(url, { allowPrivate: true })).toBeNull();
  });

  for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'gopher://example.com/', 'ws://example.com/']) {
    test(`refuses the non-http scheme of ${url}`, () => {
      const error = checkWebhookUrl(url, { allowPrivate: true });
      expect(error).toBeInstanceOf(WebhookUrlError);
      expect(error!.code).toBe('MW_ERR_WEBHOOK_URL_INVALID');
      expect(error!.message).toContain(url);
      expect(error!.message).toContain('only http and https');
    });
  }

  for (const url of ['', 'not a url', '/relative/path', 'example.com/hook']) {
    test(`refuses the malformed URL ${JSON.stringify(url)}`, () => {
      const error = checkWebhookUrl(url, { allowPrivate: true });
      expect(error!.code).toBe('MW_ERR_WEBHOOK_URL_INVALID');
      expect(error!.message).toContain('not an absolute URL');
    });
  }
});

test.describe('isLoopbackHost', () => {
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1']) {
    test(`${host} is loopback`, () => expect(isLoopbackHost(host)).toBe(true));
  }
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.10', 'example.com', '::2', '128.0.0.1']) {
    test(`${host} is not loopback`, () => expect(isLoopbackHost(host)).toBe(false));
  }

  test('private targets are allowed on a loopback server or by the option', () => {
    expect(privateWebhooksAllowed({ host: '127.0.0.1', allowPrivateWebhooks: false })).toBe(true);
    expect(privateWebhooksAllowed({ host: '0.0.0.0', allowPrivateWebhooks: false })).toBe(false);
    expect(privateWebhooksAllowed({ host: '0.0.0.0', allowPrivateWebhooks: true })).toBe(true);
  });
});

test.describe('guardedLookup (DNS rebinding)', () => {
  test('refuses a name that resolves to a loopback address', async () => {
    for (const all of [false, true]) {
      const error = await new Promise<Error | null>((resolve) => {
        guardedLookup('localhost', { all }, (err) => resolve(err));
      });
      expect(error).toBeInstanceOf(PrivateAddressError);
      expect(error!.message).toMatch(/^localhost resolves to (127\.0\.0\.1|::1), a loopback/);
      expect(error!.message).toContain('--allow-private-webhooks');
    }
  });

  test('the webhook client of a public server will not connect to a name that resolves privately', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const guarded = createWebhookClient({ host: '0.0.0.0', allowPrivateWebhooks: false });
    const open = createWebhookClient({ host: '127.0.0.1', allowPrivateWebhooks: false });
    const post = async (dispatcher: Agent) => {
      const { statusCode, body } = await request(`http://localhost:${port}/`, { dispatcher, method: 'POST', body: '{}' });
      await body.dump();
      return statusCode;
    };
    try {
      const refused = await post(guarded).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(PrivateAddressError);
      expect(await post(open)).toBe(200);
    } finally {
      await guarded.close();
      await open.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

test('a DNS-time refusal reaches API callers as "refused: private address"; where the name resolved goes to the server log only', async () => {
  // What guardedLookup does for a name that resolves into the internal network.
  const client = new Agent({ connect: { lookup: (hostname, _options, callback) => callback(new PrivateAddressError(hostname, '10.20.30.40', 'private network (RFC 1918)'), '', 4) } });
  const logged: Array<Record<string, unknown>> = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  try {
    const outcome = await postWebhook(
      { config: testConfig({ webhookTimeoutMs: 2_000, host: '0.0.0.0', allowPrivateWebhooks: false }), clock: new FakeClock(), log },
      client,
      { id: 'wh_1', url: 'http://billing.internal.example/hook', secret: generateWebhookSecret() } as WebhookRecord,
      { id: 'dlv_1', payload: '{}' },
    );
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: 'refused: private address' });
    expect(JSON.stringify(outcome)).not.toContain('10.20.30.40');
    expect(logged).toEqual([expect.objectContaining({ webhookId: 'wh_1', hostname: 'billing.internal.example', address: '10.20.30.40' })]);
  } finally {
    await client.close();
  }
});

test('a host name beyond DNS limits is refused whatever the policy: a name over 253 characters, a label over 63', () => {
  for (const allowPrivate of [false, true]) {
    const long = checkWebhookUrl(`http://${'a'.repeat(3000)}.example/x`, { allowPrivate });
    expect(long?.code).toBe('MW_ERR_WEBHOOK_URL_INVALID');
    expect(long?.message).toContain('is 3008 characters long; a DNS name has at most 253');
    expect(checkWebhookUrl(`http://${'a'.repeat(64)}.example/x`, { allowPrivate })?.message).toContain('has a 64-character label');
    const many = checkWebhookUrl(`http://${Array.from({ length: 60 }, () => 'abcde').join('.')}.example/x`, { allowPrivate });
    expect(many?.message).toContain('a DNS name has at most 253');
    expect(checkWebhookUrl(`http://${'a'.repeat(63)}.example.com/x`, { allowPrivate })).toBeNull();
  }
});
