// Unit tests of option resolution (src/playwright/options.ts), mailwrightServer() and the
// Chromium helpers.
import { test, expect } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { chromiumExecutable, chromiumLaunchOptions, findChromium } from '../../src/playwright/browser.js';
import { mailwrightServer, SERVICE_NODE_FLAGS } from '../../src/playwright/config.js';
import { resolveMailOptions } from '../../src/playwright/options.js';

const env = { MAILWRIGHT_URL: 'http://127.0.0.1:8025/', MAILWRIGHT_API_KEY: 'mw_env' };

test.describe('resolveMailOptions', () => {
  test('defaults and the environment', () => {
    expect(resolveMailOptions([], env)).toEqual({
      baseURL: 'http://127.0.0.1:8025',
      apiKey: 'mw_env',
      apiKeySource: 'environment',
      domain: undefined,
      expiryTime: 600_000,
      delivery: 'auto',
      receiverHost: '127.0.0.1',
      receiverURL: undefined,
      longPollTimeout: 25_000,
      fallbackAfter: 2_500,
      timeout: 30_000,
      attach: 'on-failure',
      keep: 'on-failure',
    });
  });

  test('the key source: option, environment, or what mailwrightServer() published', () => {
    expect(resolveMailOptions([{ apiKey: 'mw_opt' }], env).apiKeySource).toBe('option');
    expect(resolveMailOptions([], env).apiKeySource).toBe('environment');
    const published = { ...env, MAILWRIGHT_API_KEY: 'mw_playwright_local_key', MAILWRIGHT_API_KEY_ORIGIN: 'default', MAILWRIGHT_API_KEY_ORIGIN_KEY: 'mw_playwright_local_key' };
    expect(resolveMailOptions([], published).apiKeySource).toBe('server-default');
    expect(resolveMailOptions([], { ...published, MAILWRIGHT_API_KEY_ORIGIN: 'option' }).apiKeySource).toBe('server-option');
    // A key set by hand after mailwrightServer() published its own is the environment's.
    expect(resolveMailOptions([], { ...published, MAILWRIGHT_API_KEY: 'mw_mine' }).apiKeySource).toBe('environment');
  });

  test('later layers win; undefined does not erase', () => {
    const resolved = resolveMailOptions([{ delivery: 'poll', apiKey: 'mw_defaults' }, { delivery: 'webhook', apiKey: undefined, attach: 'always' }], env);
    expect(resolved.delivery).toBe('webhook');
    expect(resolved.apiKey).toBe('mw_defaults');
    expect(resolved.attach).toBe('always');
    expect(resolveMailOptions([{ baseURL: 'https://mail.example.test' }], env).baseURL).toBe('https://mail.example.test');
  });

  test('a missing URL names the option, the variable and the fix', () => {
    const run = () => resolveMailOptions([], { MAILWRIGHT_API_KEY: 'mw_x' });
    expect(run).toThrow(/"baseURL" option/);
    expect(run).toThrow(/MAILWRIGHT_URL environment variable/);
    expect(run).toThrow(/mailwrightServer\(\)/);
    try {
      run();
    } catch (error) {
      expect((error as { code: string }).code).toBe('MW_ERR_FIXTURE_OPTION');
    }
  });

  test('a missing key names the option, the variable and the fix', () => {
    const run = () => resolveMailOptions([], { MAILWRIGHT_URL: 'http://127.0.0.1:8025' });
    expect(run).toThrow(/"apiKey" option/);
    expect(run).toThrow(/MAILWRIGHT_API_KEY environment variable/);
    expect(run).toThrow(/--api-key/);
  });

  test('bad values are refused with the allowed ones', () => {
    expect(() => resolveMailOptions([{ delivery: 'push' as never }], env)).toThrow(`mailwright option "delivery" is "push"; use one of 'auto', 'webhook', 'poll'`);
    expect(() => resolveMailOptions([{ attach: 'sometimes' as never }], env)).toThrow(/'always', 'on-failure', 'never'/);
    expect(() => resolveMailOptions([{ longPollTimeout: 60_000 }], env)).toThrow(/"longPollTimeout" is 60000; it must be a number above 0 and at most 30000/);
    expect(() => resolveMailOptions([{ longPollTimeout: 25 }], env)).toThrow(/"longPollTimeout" is 25; it must be at least 1000 \(ms\)/);
    // Options of 0.1 say what became of them.
    expect(() => resolveMailOptions([{ pollInterval: 25 } as never], env)).toThrow(/"pollInterval" is no longer supported: it was renamed "longPollTimeout" and is in ms now/);
    expect(() => resolveMailOptions([{ provider: 'mailwright' } as never], env)).toThrow(/"provider" is no longer supported: it was removed/);
    expect(() => resolveMailOptions([{ expiryTime: -1 }], env)).toThrow(/"expiryTime"/);
    expect(() => resolveMailOptions([{ baseURL: 'ftp://x' }], env)).toThrow(/http:\/\/ or https:\/\//);
    expect(() => resolveMailOptions([{ baseURL: 'not a url' }], env)).toThrow(/not a URL/);
    expect(() => resolveMailOptions([{ baseUrl: 'http://x' } as never], env)).toThrow(/unknown mailwright option "baseUrl"/);
  });
});

test.describe('mailwrightServer', () => {
  test('builds a webServer entry and publishes the URL and key', () => {
    const saved = { ...process.env };
    try {
      delete process.env.MAILWRIGHT_API_KEY;
      const entry = mailwrightServer({ httpPort: 18025, smtpPort: 12525, domain: ['a.test', 'b.test'], extraArgs: ['--log-level', 'warn'], timeout: 10_000, reuseExistingServer: false });
      expect(entry.url).toBe('http://127.0.0.1:18025/health');
      expect(entry.timeout).toBe(10_000);
      expect(entry.reuseExistingServer).toBe(false);
      // The current Node runs the CLI (quoted when its path needs it).
      const node = /^[\w@%+=:,./-]+$/.test(process.execPath) ? process.execPath : `'${process.execPath}'`;
      expect(entry.command.startsWith(`${node} ${SERVICE_NODE_FLAGS.join(' ')} `)).toBe(true); // the memory flags npm start uses too
      expect(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts.start).toBe(`node ${SERVICE_NODE_FLAGS.join(' ')} dist/cli.js serve`);
      expect(entry.command).toMatch(/cli\.js serve --host 127\.0\.0\.1 --http-port 18025 --smtp-port 12525 --api-key mw_playwright_local_key --data :memory: --domain a\.test --domain b\.test --exit-with-parent \d+ --log-level warn$/);
      // The service follows the process that loaded the config (the runner): it stops when that one is gone.
      expect(/--exit-with-parent (\d+)/.exec(entry.command)![1]).toBe(String(process.pid));
      const cli = /(\S*cli\.js)/.exec(entry.command)![1]!;
      expect(existsSync(cli)).toBe(true);
      expect(process.env.MAILWRIGHT_URL).toBe('http://127.0.0.1:18025');
      expect(process.env.MAILWRIGHT_API_KEY).toBe('mw_playwright_local_key');
      expect(process.env.MAILWRIGHT_SMTP_URL).toBe('smtp://127.0.0.1:12525');
      expect(mailwrightServer({ apiKey: 'mw_mine' }).command).toContain('--api-key mw_mine');
      expect(mailwrightServer().url).toBe('http://127.0.0.1:8025/health');
      expect(() => mailwrightServer({ httpPort: -1 })).toThrow(expect.objectContaining({ code: 'MW_ERR_FIXTURE_OPTION', message: expect.stringContaining('httpPort must be a port 0-65535') }));
      // Port 0: no URL to wait on; Playwright reads the ports from the banner's first line instead.
      const picked = mailwrightServer({ httpPort: 0, smtpPort: 0, reuseExistingServer: true });
      expect(picked.url).toBeUndefined();
      expect(picked.reuseExistingServer).toBe(false);
      const banner = picked.wait!.stdout!.exec('mailwright 0.1.0 listening: HTTP http://127.0.0.1:40123 SMTP smtp://127.0.0.1:40124\n  API ...');
      expect(banner?.groups).toEqual({ mailwright_url: 'http://127.0.0.1:40123', mailwright_smtp_url: 'smtp://127.0.0.1:40124' });
    } finally {
      for (const key of ['MAILWRIGHT_URL', 'MAILWRIGHT_API_KEY', 'MAILWRIGHT_SMTP_URL']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });
});

test.describe('chromium helpers', () => {
  test("findChromium: Playwright's own first, then the system browsers in order, then CHROME_PATH", () => {
    const probe = (present: string[], own?: string, env: Record<string, string> = {}) => ({ playwrightPath: () => own, exists: (p: string) => present.includes(p), env });
    expect(findChromium(probe(['/pw/chrome', '/usr/bin/chromium'], '/pw/chrome'))).toEqual({ source: 'playwright', path: '/pw/chrome' });
    // Playwright's path known but not downloaded: a system browser is used, and launched by path.
    expect(findChromium(probe(['/usr/bin/google-chrome', '/usr/bin/chromium-browser'], '/pw/chrome'))).toEqual({ source: 'system', path: '/usr/bin/chromium-browser' });
    expect(chromiumExecutable(probe(['/usr/bin/google-chrome'], '/pw/chrome'))).toBe('/usr/bin/google-chrome');
    expect(chromiumExecutable(probe(['/pw/chrome'], '/pw/chrome'))).toBeUndefined();
    expect(findChromium(probe(['/opt/chrome'], undefined, { CHROME_PATH: '/opt/chrome' }))).toEqual({ source: 'system', path: '/opt/chrome' });
    expect(findChromium(probe([], undefined, { CHROME_PATH: '/opt/chrome' }))).toEqual({ source: 'none' });
  });

  test('chromiumLaunchOptions has the quiet flags, and no-sandbox only as root or in CI', () => {
    const options = chromiumLaunchOptions();
    expect(options.args).toEqual(expect.arrayContaining(['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync']));
    const privileged = process.getuid?.() === 0 || !!process.env.CI;
    expect(options.args.includes('--no-sandbox')).toBe(privileged);
    expect(options.executablePath).toBe(chromiumExecutable());
  });
});
