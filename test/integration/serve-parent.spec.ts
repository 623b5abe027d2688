// Integration: `mailwright serve --exit-with-parent PID` ends with the process that started it,
// also when that one is killed with SIGKILL (a test runner at a CI timeout) and cannot stop it:
// it stops as on SIGTERM, with one line saying why, and its closed output pipe does not crash it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { runCli } from './helpers/cli-process.js';
import { spawnServe } from './helpers/serve-process.js';
import { ROOT, cleanEnv, tempDir } from './helpers/service.js';
import { SERVICE_NODE_FLAGS } from '../../src/server/node-flags.js';

/** Whether `pid` still runs. An orphan that has exited stays a zombie until init reaps it: that one has ended. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

/** Whether nothing listens at `url` any more. */
const refuses = (url: string) => fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) }).then(() => false, () => true);

// A stand-in for the test runner: starts the service as mailwrightServer() has it started (its own
// process group, its stdout a pipe the runner reads, its own pid passed), prints the service's pid
// and URL, then idles until it is killed. The service's stderr goes to a file, to show a crash.
const RUNNER = `
const { spawn } = require('node:child_process');
const { openSync } = require('node:fs');
const [cli, stderrFile, ...nodeFlags] = process.argv.slice(1);
const child = spawn(process.execPath, [...nodeFlags, cli, 'serve', '--http-port', '0', '--smtp-port', '0', '--data', ':memory:', '--exit-with-parent', String(process.pid)], { detached: true, stdio: ['ignore', 'pipe', openSync(stderrFile, 'a')] });
let out = '';
child.stdout.on('data', (chunk) => {
  const first = out === '' || !/HTTP (http:\\/\\/\\S+)/.test(out);
  out += chunk;
  const ready = /HTTP (http:\\/\\/\\S+)/.exec(out);
  if (first && ready) process.stdout.write(JSON.stringify({ pid: child.pid, httpUrl: ready[1] }) + '\\n');
});
setInterval(() => {}, 60_000);
`;

test('a service whose runner is killed with SIGKILL stops by itself, without a crash', async () => {
  const stderrFile = join(tempDir(), 'serve.stderr');
  const runner = spawn(process.execPath, ['-e', RUNNER, join(ROOT, 'dist', 'cli.js'), stderrFile, ...SERVICE_NODE_FLAGS], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'inherit'] });
  let service: { pid: number; httpUrl: string } | undefined;
  try {
    service = await new Promise<{ pid: number; httpUrl: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the service did not start within 20 s')), 20_000);
      let out = '';
      runner.stdout.on('data', (chunk) => {
        out += chunk;
        if (!out.includes('\n')) return;
        clearTimeout(timer);
        resolve(JSON.parse(out.split('\n')[0]!) as { pid: number; httpUrl: string });
      });
      runner.once('exit', () => reject(new Error(`the stand-in runner exited early: ${readFileSync(stderrFile, 'utf8')}`)));
    });
    expect(running(service.pid)).toBe(true);
    expect((await fetch(`${service.httpUrl}/health`)).status).toBe(200);

    runner.kill('SIGKILL');
    const { pid, httpUrl } = service;
    // It checks every second; a graceful stop of an idle service takes well under a second more.
    await expect.poll(async () => !running(pid) && (await refuses(httpUrl)), { timeout: 15_000, intervals: [100] }).toBe(true);
    // An EPIPE from writing into the dead runner's pipe would have ended it with a stack trace here.
    expect(readFileSync(stderrFile, 'utf8')).toBe('');
  } finally {
    if (runner.exitCode === null && runner.signalCode === null) runner.kill('SIGKILL');
    if (service && running(service.pid)) process.kill(service.pid, 'SIGKILL');
  }
});

test('the process it follows need not be its parent: when that one is gone it says so and exits 0', async () => {
  // As when Playwright runs the command through a shell: the direct parent (here this test) lives on.
  const follows = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' });
  const server = await spawnServe(['--data', ':memory:', '--exit-with-parent', String(follows.pid)]);
  try {
    follows.kill('SIGKILL');
    const exit = await Promise.race([server.exited, new Promise<'still running'>((resolve) => setTimeout(() => resolve('still running'), 15_000).unref())]);
    expect(exit, server.output()).toEqual({ code: 0, signal: null });
    expect(server.output()).toContain(`the process that started this service (pid ${follows.pid}) is gone; stopping\n`);
    expect(await refuses(server.httpUrl)).toBe(true);
  } finally {
    if (follows.exitCode === null && follows.signalCode === null) follows.kill('SIGKILL');
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
  }
});

test('--exit-with-parent refuses a pid no process has, or no number, as a usage error', async () => {
  const none = await runCli('serve', '--http-port', '0', '--smtp-port', '0', '--data', ':memory:', '--exit-with-parent', '999999999');
  expect(none).toEqual({ code: 2, stdout: '', stderr: 'mailwright: --exit-with-parent 999999999: no process has that pid; pass the pid of the process whose end should stop the service\n' });
  const word = await runCli('serve', '--http-port', '0', '--smtp-port', '0', '--data', ':memory:', '--exit-with-parent', 'runner');
  expect(word).toEqual({ code: 2, stdout: '', stderr: 'mailwright: --exit-with-parent must be a whole number, got "runner"\n' });
});
