// Unit tests of option resolution (src/playwright/options.ts), mailwrightServer() and the
// Chromium helpers.
import { test, expect } from '@playwright/test';
import { existsSync } from 'node:fs';
import { chromiumExecutable, chromiumLaunchOptions } from '../../src/playwright/browser.js';
import { mailwrightServer } from '../../src/playwright/config.js';
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
      pollInterval: 25,
      fallbackAfter: 2_500,
      timeout: 30_000,
      attach: 'on-failure',
      provider: 'mailwright',
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
    expect(() => resolveMailOptions([{ provider: 'mailslurp' as never }], env)).toThrow(/"provider" is "mailslurp"; use one of 'mailwright'/);
    expect(() => resolveMailOptions([{ pollInterval: 60 }], env)).toThrow(/"pollInterval" is 60; it must be a number above 0 and at most 30/);
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
      expect(entry.command).toContain(process.execPath.includes(' ') ? '' : process.execPath);
      expect(entry.command).toMatch(/cli\.js serve --host 127\.0\.0\.1 --http-port 18025 --smtp-port 12525 --api-key mw_playwright_local_key --data :memory: --domain a\.test --domain b\.test --log-level warn$/);
      const cli = /(\S*cli\.js)/.exec(entry.command)![1]!;
      expect(existsSync(cli)).toBe(true);
      expect(process.env.MAILWRIGHT_URL).toBe('http://127.0.0.1:18025');
      expect(process.env.MAILWRIGHT_API_KEY).toBe('mw_playwright_local_key');
      expect(process.env.MAILWRIGHT_SMTP_URL).toBe('smtp://127.0.0.1:12525');
      expect(mailwrightServer({ apiKey: 'mw_mine' }).command).toContain('--api-key mw_mine');
      expect(mailwrightServer().url).toBe('http://127.0.0.1:8025/health');
      expect(() => mailwrightServer({ httpPort: 0 })).toThrow(/httpPort must be a fixed port/);
    } finally {
      for (const key of ['MAILWRIGHT_URL', 'MAILWRIGHT_API_KEY', 'MAILWRIGHT_SMTP_URL']) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  });
});

test.describe('chromium helpers', () => {
  test('chromiumExecutable returns an existing file or undefined', () => {
    const path = chromiumExecutable();
    if (path !== undefined) expect(existsSync(path)).toBe(true);
  });

  test('chromiumLaunchOptions has the quiet flags, and no-sandbox only as root or in CI', () => {
    const options = chromiumLaunchOptions();
    expect(options.args).toEqual(expect.arrayContaining(['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync']));
    const privileged = process.getuid?.() === 0 || !!process.env.CI;
    expect(options.args.includes('--no-sandbox')).toBe(privileged);
    expect(options.executablePath).toBe(chromiumExecutable());
  });
});
