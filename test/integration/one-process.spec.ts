// `node dist/cli.js serve` (how `npx mailwright serve` runs it) is one process: the started
// process is the service, with no child of its own, so a signal to it, kill -9 included,
// reaches the service and nothing is left behind. Seen through /proc, so Linux only.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { spawnServe } from './helpers/serve-process.js';

test.skip(process.platform !== 'linux', 'reads the processes from /proc');

const children = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
const gone = (url: string) => expect.poll(() => fetch(`${url}/health`).then(() => 'answering', () => 'gone'), { timeout: 10_000 }).toBe('gone');

test('a start without Node flags serves in the started process itself, and SIGTERM to it ends the service with exit 0', async () => {
  const server = await spawnServe(['--data', ':memory:'], 20_000, { nodeFlags: [] });
  expect(children(server.child.pid!)).toEqual([]);
  expect((await fetch(`${server.httpUrl}/health`)).status).toBe(200);
  server.child.kill('SIGTERM');
  expect(await server.exited).toEqual({ code: 0, signal: null });
  expect(server.output()).toContain('SIGTERM: shutting down');
  await gone(server.httpUrl);
});

test('kill -9 of what was started leaves no service behind', async () => {
  const server = await spawnServe(['--data', ':memory:'], 20_000, { nodeFlags: [] });
  server.child.kill('SIGKILL');
  await server.exited;
  await gone(server.httpUrl);
});
