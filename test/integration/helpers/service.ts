// Test helpers: start the real service on free ports, call its API, send mail over SMTP,
// and run the real CLI against the same store.
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import nodemailer, { type SendMailOptions, type SentMessageInfo } from 'nodemailer';
import { startServer, type ServerOptions, type StartedServer } from '../../../src/server/index.js';
import type { StartServerInternals } from '../../../src/server/start.js';

export const ADMIN_KEY = 'mw_test_admin_key_0123456789';
export const ROOT = join(import.meta.dirname, '..', '..', '..');

export interface TestService extends StartedServer {
  data: string;
  /** Calls the API; returns status, headers and parsed JSON (or text). */
  api(method: string, path: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<ApiResult>;
  send(mail: SendMailOptions): Promise<SentMessageInfo>;
}

export interface ApiResult {
  status: number;
  headers: Headers;
  body: any;
}

export function tempDir(prefix = 'mailwright-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export async function startTestService(options: ServerOptions = {}, internals: StartServerInternals = {}): Promise<TestService> {
  const data = options.data ?? ':memory:';
  const server = await startServer({ host: '127.0.0.1', httpPort: 0, smtpPort: 0, apiKey: ADMIN_KEY, logLevel: 'silent', ...options, data }, internals);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: server.smtpPort, secure: false, ignoreTLS: true, pool: false });
  return Object.assign(server, {
    data,
    async api(method: string, path: string, opts: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const key = opts.key === undefined ? ADMIN_KEY : opts.key;
      if (key) headers['x-api-key'] = key;
      if (opts.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(server.httpUrl + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
      const text = await res.text();
      let body: unknown = text;
      if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text);
      return { status: res.status, headers: res.headers, body };
    },
    send: (mail: SendMailOptions) => transport.sendMail(mail),
  });
}

const run = promisify(execFile);

/** This process's environment without MAILWRIGHT_* (the Playwright config exports some for the fixture). */
export function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILWRIGHT_')));
}

/** Runs `mailwright <args>` from the built CLI; resolves stdout, rejects with stderr. */
export async function cli(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [join(ROOT, 'dist', 'cli.js'), ...args], { cwd: ROOT, env: cleanEnv() });
  return stdout;
}

/** The secret on the last line of a CLI answer. */
export function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)!.trim();
}

/** Creates an account and a key with the CLI against `data`; returns the key. */
export async function accountWithKey(data: string, email: string, opts: { role?: string; scopes?: string } = {}): Promise<string> {
  await cli('accounts', 'create', '--email', email, '--data', data, ...(opts.role ? ['--role', opts.role] : []));
  return lastLine(await cli('keys', 'create', '--email', email, '--data', data, ...(opts.scopes ? ['--scopes', opts.scopes] : [])));
}
