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

/** `text` as a literal inside a RegExp. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The 16-bit groups of a dotted IPv4 address, as hex. */
function groups(ipv4: string, xor = 0): [string, string] {
  const [a, b, c, d] = ipv4.split('.').map(Number) as [number, number, number, number];
  return [(((a << 8) | b) ^ xor).toString(16), (((c << 8) | d) ^ xor).toString(16)];
}

/** A Teredo address (2001:0::/32): server IPv4 in groups 2-3, client IPv4 XOR 0xffffffff in the last two. */
function teredo(server: string, client: string): string {
  return ['2001', '0', ...groups(server), '8000', '63bf', ...groups(client, 0xffff)].join(':');
}

/** Teredo server of the examples: a public address (65.54.227.120). */
const TEREDO_SERVER = '65.54.227.120';

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
    // The cloud metadata address spelled in IPv6.
    'http://[2002:a9fe:a9fe::1]/', // 6to4
    'http://[::a9fe:a9fe]/', // IPv4-compatible (::/96)
    `http://[${teredo(TEREDO_SERVER, '169.254.169.254')}]/`, // Teredo client
    'http://[::ffff:0:a9fe:a9fe]/', // IPv4-translated (RFC 6145)
    'http://[64:ff9b:1::a9fe:a9fe]/', // local-use NAT64 (RFC 8215)
    'http://[0:0:0:0:0:ffff:a9fe:a9fe]/', // IPv4-mapped, spelled out
    'http://[fd00:ec2::254]/', // the IPv6 metadata address
    // Loopback and private IPv4 wrapped in every IPv6 form.
    'http://[::ffff:7f00:1]/',
    'http://[2002:7f00:1::1]/',
    'http://[2002:a00:1::1]/',
    'http://[2002:c0a8:1::1]/',
    `http://[${teredo(TEREDO_SERVER, '127.0.0.1')}]/`,
    `http://[${teredo(TEREDO_SERVER, '10.0.0.1')}]/`,
    `http://[${teredo(TEREDO_SERVER, '192.168.0.1')}]/`,
    `http://[${teredo('10.0.0.1', '93.184.216.34')}]/`, // a private Teredo server
    'http://[64:ff9b::7f00:1]/',
    'http://[64:ff9b::a00:1]/',
    'http://[64:ff9b::c0a8:1]/',
    'http://[64:ff9b:1::7f00:1]/',
    'http://[::7f00:1]/',
    'http://[::a00:1]/',
    'http://[::c0a8:1]/',
    'http://[::ffff:0:a00:1]/',
    // Other non-unicast ranges.
    'http://[2001:db8::1]/', // documentation
    'http://[2002:ffff:ffff::1]/', // 6to4 of the broadcast address
    'http://[::ffff:255.255.255.255]/',
    'http://[ff02::1]/', // multicast
    'http://[fec0::1]/', // site-local
    'http://[100::1]/', // discard-only
    'http://198.18.0.1/', // benchmarking
    'http://192.0.2.1/', // documentation
    'http://240.0.0.1/', // reserved
  ];
  for (const url of privateTargets) {
    test(`refuses ${url}`, () => {
      const error = refusal(url);
      expect(error, `${url} should be refused`).not.toBeNull();
      expect(error!.code).toBe('MW_ERR_WEBHOOK_URL_PRIVATE');
      expect(error!.url).toBe(url);
      expect(error!.message).toContain(url);
      expect(error!.rule).not.toBe('');
      expect(error!.message).toMatch(new RegExp(`, an? ${escape(error!.rule)}; `));
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
    expect(refusal('http://[::]/')!.rule).toContain('unspecified');
    expect(refusal('http://255.255.255.255/')!.rule).toContain('broadcast');
    expect(refusal('http://224.0.0.1/')!.rule).toContain('multicast');
    expect(refusal('http://[2001:db8::1]/')!.rule).toContain('documentation');
    expect(refusal('http://[fd00:ec2::254]/')!.rule).toContain('cloud metadata address');
  });

  const metadataSpellings: Array<[string, string]> = [
    ['http://[2002:a9fe:a9fe::1]/', '6to4 address embedding 169.254.169.254, a cloud metadata address'],
    ['http://[::a9fe:a9fe]/', 'IPv4-compatible address embedding 169.254.169.254, a cloud metadata address'],
    [`http://[${teredo(TEREDO_SERVER, '169.254.169.254')}]/`, 'Teredo address whose client is 169.254.169.254, a cloud metadata address'],
    ['http://[::ffff:0:a9fe:a9fe]/', 'IPv4-translated address embedding 169.254.169.254, a cloud metadata address'],
    ['http://[64:ff9b:1::a9fe:a9fe]/', 'NAT64 address embedding 169.254.169.254, a cloud metadata address'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'NAT64 address embedding 169.254.169.254, a cloud metadata address'],
    ['http://[0:0:0:0:0:ffff:a9fe:a9fe]/', 'IPv4-mapped address embedding 169.254.169.254, a cloud metadata address'],
  ];
  for (const [url, rule] of metadataSpellings) {
    test(`refuses the metadata address spelled ${url} and says how it is wrapped`, () => {
      const error = refusal(url);
      expect(error?.code).toBe('MW_ERR_WEBHOOK_URL_PRIVATE');
      expect(error!.rule).toMatch(new RegExp(`^${rule.replace(/[.()]/g, '\\$&')}`));
      expect(error!.message).toMatch(new RegExp(`, an? ${escape(rule)}`));
      expect(error!.message).toContain('--allow-private-webhooks');
    });
  }

  test('the Teredo helper builds the client from the last 32 bits XOR 0xffffffff', () => {
    expect(teredo(TEREDO_SERVER, '169.254.169.254')).toBe('2001:0:4136:e378:8000:63bf:5601:5601');
  });

  test('names the wrapped private and loopback addresses', () => {
    expect(refusal('http://[2002:7f00:1::1]/')!.rule).toMatch(/^6to4 address embedding 127\.0\.0\.1, a loopback/);
    expect(refusal(`http://[${teredo(TEREDO_SERVER, '10.0.0.1')}]/`)!.rule).toMatch(/^Teredo address whose client is 10\.0\.0\.1, a private network \(RFC 1918/);
    expect(refusal(`http://[${teredo('10.0.0.1', '93.184.216.34')}]/`)!.rule).toMatch(/^Teredo address whose server is 10\.0\.0\.1, a private network/);
    expect(refusal('http://[64:ff9b::c0a8:1]/')!.rule).toMatch(/^NAT64 address embedding 192\.168\.0\.1, a private network/);
    expect(refusal('http://[::c0a8:1]/')!.rule).toMatch(/^IPv4-compatible address embedding 192\.168\.0\.1, a private network/);
    expect(refusal('http://[::ffff:7f00:1]/')!.rule).toMatch(/^IPv4-mapped address embedding 127\.0\.0\.1, a loopback/);
    expect(refusal('http://[2002:ffff:ffff::1]/')!.rule).toMatch(/^6to4 address embedding 255\.255\.255\.255, a broadcast/);
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
    'http://93.184.216.34/',
    'http://[2606:2800:220:1:248:1893:25c8:1946]/',
    'https://example.com/hook',
    'http://[2002:5db8:d822::1]/', // 6to4 of 93.184.216.34
    'http://[64:ff9b::5db8:d822]/', // NAT64 of 93.184.216.34
    'http://[64:ff9b:1::5db8:d822]/',
    `http://[${teredo(TEREDO_SERVER, '93.184.216.34')}]/`, // public server and client
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
  for (const host of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost', 'LOCALHOST', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', 'app.localhost', '::ffff:7f00:1']) {
    test(`${host} is loopback`, () => expect(isLoopbackHost(host)).toBe(true));
  }
  for (const host of ['0.0.0.0', '::', '10.0.0.1', '192.168.1.10', 'example.com', '::2', '128.0.0.1', 'fe80::1%eth0', '2002:7f00:1::1', '']) {
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

  // dns.lookup answers an address literal with itself, without asking DNS: these stand for a
  // name whose DNS answer is that address.
  const lookup = (hostname: string, all: boolean) =>
    new Promise<{ error: Error | null; answer: unknown }>((resolve) => {
      guardedLookup(hostname, { all }, (error, answer) => resolve({ error, answer }));
    });

  for (const address of ['2002:a9fe:a9fe::1', '::a9fe:a9fe', teredo(TEREDO_SERVER, '169.254.169.254'), '::ffff:0:a9fe:a9fe', '64:ff9b:1::a9fe:a9fe', 'fd00:ec2::254']) {
    test(`refuses an answer of ${address}, the metadata address in IPv6`, async () => {
      for (const all of [false, true]) {
        const { error } = await lookup(address, all);
        expect(error).toBeInstanceOf(PrivateAddressError);
        expect((error as PrivateAddressError).address).toBe(address);
        expect((error as PrivateAddressError).rule).toContain('cloud metadata address');
        expect(error!.message).toMatch(new RegExp(`^${address.replace(/\./g, '\\.')} resolves to ${address.replace(/\./g, '\\.')}, an? .*cloud metadata address`));
        expect(error!.message).toContain('--allow-private-webhooks');
      }
    });
  }

  test('passes an answer of a public address, wrapped or not', async () => {
    for (const address of ['93.184.216.34', '2002:5db8:d822::1', '64:ff9b::5db8:d822', '2606:2800:220:1:248:1893:25c8:1946']) {
      expect((await lookup(address, false))).toEqual({ error: null, answer: address });
      expect((await lookup(address, true)).answer).toEqual([{ address, family: address.includes(':') ? 6 : 4 }]);
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
