import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { runCli } from './helpers/cli-process.js';
import { spawnServe } from './helpers/serve-process.js';
import { cli, tempDir } from './helpers/service.js';

test('serve prints its ports and the first-start admin key once; SIGTERM ends held long-polls and exits 0', async () => {
  const data = join(tempDir(), 'serve.db');
  const server = await spawnServe(['--data', data]);
  const key = /shown only now:\n(mw_\S+)/.exec(server.output())?.[1];
  expect(key, server.output()).toBeTruthy();
  const headers = { 'x-api-key': key!, 'content-type': 'application/json' };
  const box = await (await fetch(`${server.httpUrl}/api/emails/generate`, { method: 'POST', headers, body: JSON.stringify({ expiryTime: 3_600_000 }) })).json();
  const poll = fetch(`${server.httpUrl}/api/emails?mailbox=${box.id}&wait=30`, { headers }).then((r) => r.status, () => 'connection closed');
  // Wait until the poll is being held, observed through the quota counter (one call each).
  await expect.poll(async () => (await (await fetch(`${server.httpUrl}/api/config`, { headers })).json()).quota.used, { timeout: 5_000 }).toBeGreaterThanOrEqual(3);
  const stoppedAt = Date.now();
  server.child.kill('SIGTERM');
  const exit = await server.exited;
  expect(exit.code).toBe(0);
  expect(Date.now() - stoppedAt).toBeLessThan(10_000);
  expect(await poll).toBe(200);
  expect(server.output()).toContain('SIGTERM: shutting down');

  // A second start on the same store does not print a new key.
  const again = await spawnServe(['--data', data]);
  expect(again.output()).not.toContain('shown only now');
  again.child.kill('SIGTERM');
  expect((await again.exited).code).toBe(0);
});

test('CLI errors go to stderr with a non-zero exit and a way out, nothing to stdout', async () => {
  const data = join(tempDir(), 'cli.db');
  const fails = async (args: string[], stderr: RegExp) => {
    const result = await runCli(...args, '--data', data);
    expect(result.code, args.join(' ')).toBeGreaterThan(0);
    expect(result.stdout, args.join(' ')).toBe('');
    expect(result.stderr, args.join(' ')).toMatch(stderr);
    expect(result.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
  };
  await fails(['keys', 'create', '--email', 'ghost@example.test'], /^mailwright: no account has email ghost@example.test; create it with `mailwright accounts create --email ghost@example.test`/);
  await fails(['accounts', 'create', '--email', 'a@example.test', '--role', 'pope'], /^mailwright: role "pope" is unknown; choose one of civilian, knight, duke, emperor/);
  await fails(['quota', 'code', '--calls', 'many'], /^mailwright: --calls must be a whole number/);
  await fails(['serve', '--http-port', '99999'], /^mailwright: --http-port must be a port number/);
  // Nothing was created by the refused commands: the account is still unknown.
  await fails(['keys', 'create', '--email', 'a@example.test', '--scopes', 'admin'], /^mailwright: no account has email a@example.test/);
  const out = await cli('accounts', 'create', '--email', 'a@example.test', '--role', 'knight', '--data', data);
  expect(out).toContain('role knight');
  await fails(['keys', 'create', '--email', 'a@example.test', '--scopes', 'admin'], /^mailwright: scope "admin" is unknown/);
});

test('a port in use ends serve with one line naming the port and the flag, not a stack trace', async () => {
  const { createServer } = await import('node:net');
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const taken = (holder.address() as { port: number }).port;
  try {
    const data = join(tempDir(), 'busy.db');
    const http = await cli('serve', '--http-port', String(taken), '--smtp-port', '0', '--data', data).then(() => '', (error: Error) => error.message);
    expect(http).toContain(`mailwright: HTTP port ${taken} is already in use; pass --http-port with another port, or --http-port 0 to take a free one`);
    expect(http).not.toMatch(/\n\s+at /);
    const smtp = await cli('serve', '--http-port', '0', '--smtp-port', String(taken), '--data', data).then(() => '', (error: Error) => error.message);
    expect(smtp).toContain(`mailwright: SMTP port ${taken} is already in use; pass --smtp-port with another port, or --smtp-port 0 to take a free one`);
    expect(smtp).not.toMatch(/\n\s+at /);
  } finally {
    holder.close();
  }
});

test('GET / shows a page with the way to the docs, never a bare 404', async () => {
  const server = await spawnServe(['--data', join(tempDir(), 'front.db')]);
  try {
    const page = await fetch(`${server.httpUrl}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('<a href="/docs">');
    const json = await (await fetch(`${server.httpUrl}/`, { headers: { accept: 'application/json' } })).json();
    expect(json.links.docs).toBe('/docs');
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
