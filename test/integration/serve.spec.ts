import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { spawnServe } from './helpers/serve-process.js';
import { ADMIN_KEY, cli, tempDir } from './helpers/service.js';

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

test('CLI errors go to stderr with a non-zero exit and a way out', async () => {
  const data = join(tempDir(), 'cli.db');
  await expect(cli('keys', 'create', '--email', 'ghost@example.test', '--data', data)).rejects.toThrow(/no account has email ghost@example.test; create it with `mailwright accounts create/);
  await expect(cli('accounts', 'create', '--email', 'a@example.test', '--role', 'pope', '--data', data)).rejects.toThrow(/role "pope" is unknown; choose one of civilian, knight, duke, emperor/);
  await expect(cli('quota', 'code', '--calls', 'many', '--data', data)).rejects.toThrow(/--calls must be a whole number/);
  await expect(cli('serve', '--http-port', '99999', '--data', data)).rejects.toThrow(/--http-port must be a port number/);
  await expect(cli('keys', 'create', '--email', 'a@example.test', '--scopes', 'admin', '--data', data)).rejects.toThrow();
  const out = await cli('accounts', 'create', '--email', 'a@example.test', '--role', 'knight', '--data', data);
  expect(out).toContain('role knight');
  await expect(cli('keys', 'create', '--email', 'a@example.test', '--scopes', 'admin', '--data', data)).rejects.toThrow(/scope "admin" is unknown/);
  expect(ADMIN_KEY).toBeTruthy();
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
