// Runs the built CLI the way people do and reports what they see: the exit code, stdout and
// stderr; and `mailwright serve` under a pseudo-terminal (util-linux `script`), where its
// stdout is a TTY as in a terminal window.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect } from '@playwright/test';
import { ROOT, cleanEnv } from './service.js';

const CLI = join(ROOT, 'dist', 'cli.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `mailwright <args>` to its end, whatever its exit code. */
export function runCli(...args: string[]): Promise<CliResult> {
  return runCliWith(args, {});
}

/** Runs `mailwright <args>` with these MAILWRIGHT_* variables (and no others from this process), to its end. */
export async function runCliWith(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, env: { ...cleanEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** Whether `script` (util-linux) is there to give a child a pseudo-terminal. */
export const HAS_SCRIPT = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

export interface TerminalServe {
  /** What the terminal showed so far: colours removed, line ends as `\n`. */
  screen(): string;
  /** Ends the session and waits until the server no longer answers. */
  stop(): Promise<void>;
}

const shellQuote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);
const plain = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '').replace(/\r\n/g, '\n');

/**
 * Runs `mailwright serve --http-port 0 --smtp-port 0 <args>` on a pseudo-terminal and resolves
 * once the screen matches `ready` (by default, the end of the start banner).
 */
export async function serveInTerminal(args: string[], opts: { env?: NodeJS.ProcessEnv; ready?: RegExp; timeoutMs?: number } = {}): Promise<TerminalServe> {
  const command = [process.execPath, CLI, 'serve', '--http-port', '0', '--smtp-port', '0', ...args].map(shellQuote).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: { ...cleanEnv(), ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let raw = '';
  const screen = () => plain(raw);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const ready = opts.ready ?? /^(?: {2}API key .*|  export MAILWRIGHT_API_KEY=\S+)\n/m;
  const timeoutMs = opts.timeoutMs ?? 20_000;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mailwright serve on a terminal did not show ${ready} within ${timeoutMs} ms:\n${screen()}`)), timeoutMs);
    const check = () => {
      if (!ready.test(screen())) return;
      clearTimeout(timer);
      resolve();
    };
    child.stdout.on('data', (chunk) => {
      raw += chunk;
      check();
    });
    child.stderr.on('data', (chunk) => (raw += chunk));
    void closed.then(() => {
      clearTimeout(timer);
      reject(new Error(`mailwright serve on a terminal ended early:\n${screen()}`));
    });
  });
  const httpUrl = /HTTP (http:\/\/\S+) SMTP/.exec(screen())?.[1];
  return {
    screen,
    async stop() {
      child.kill('SIGTERM');
      await closed;
      // `script` ends the server with its session; it must not outlive it.
      if (httpUrl) await expect.poll(() => fetch(`${httpUrl}/health`).then(() => 'answering', () => 'gone'), { timeout: 10_000 }).toBe('gone');
    },
  };
}
