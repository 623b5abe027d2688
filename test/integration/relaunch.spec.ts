// `node dist/cli.js serve` (how `npx mailwright serve` runs it) starts the service again with
// SERVICE_NODE_FLAGS: in the same process on a Node with process.execve, else in a child that
// the started process waits for. Seen through /proc, so Linux only.
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { SERVICE_NODE_FLAGS } from '../../src/server/node-flags.js';
import { spawnServe } from './helpers/serve-process.js';

test.skip(process.platform !== 'linux', 'reads the processes from /proc');

const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
const children = (pid: number) => readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/** The command line of the process that serves: the started one itself (execve), or its only child. */
function serviceArgs(started: number): { pid: number; args: string[] } {
  const kids = children(started);
  expect(kids.length, `children of the started process: ${kids.join(' ')}`).toBeLessThanOrEqual(1);
  const pid = kids[0] ?? started;
  return { pid, args: commandLine(pid) };
}

const gone = (url: string) => expect.poll(() => fetch(`${url}/health`).then(() => 'answering', () => 'gone'), { timeout: 10_000 }).toBe('gone');

test('a start without the Node flags serves with them, and SIGTERM to what was started ends the service with exit 0', async () => {
  const server = await spawnServe(['--data', ':memory:'], 20_000, { nodeFlags: [] });
  const service = serviceArgs(server.child.pid!);
  expect(service.args.slice(1, 1 + SERVICE_NODE_FLAGS.length)).toEqual([...SERVICE_NODE_FLAGS]);
  expect(service.args.slice(-4)).toEqual(['--log-level', 'warn', '--data', ':memory:']);
  expect((await fetch(`${server.httpUrl}/health`)).status).toBe(200);
  server.child.kill('SIGTERM');
  expect(await server.exited).toEqual({ code: 0, signal: null });
  expect(server.output()).toContain('SIGTERM: shutting down');
  await gone(server.httpUrl);
});

test('kill -9 of what was started leaves no service behind', async () => {
  const server = await spawnServe(['--data', ':memory:'], 20_000, { nodeFlags: [] });
  const service = serviceArgs(server.child.pid!);
  server.child.kill('SIGKILL');
  await server.exited;
  await gone(server.httpUrl);
  await expect.poll(() => { try { return commandLine(service.pid).length > 0 ? 'running' : 'ended'; } catch { return 'ended'; } }, { timeout: 10_000 }).toBe('ended');
});

test('a Node flag given by hand keeps its value; only the others are added', async () => {
  const server = await spawnServe(['--data', ':memory:'], 20_000, { nodeFlags: ['--max-semi-space-size=4'] });
  try {
    const { args } = serviceArgs(server.child.pid!);
    expect(args).toContain('--max-semi-space-size=4');
    expect(args).not.toContain('--max-semi-space-size=2');
    expect(args).toEqual(expect.arrayContaining(['--v8-pool-size=2', '--no-memory-reducer']));
  } finally {
    server.child.kill('SIGTERM');
    await server.exited;
  }
});
