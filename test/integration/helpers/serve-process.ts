// Runs `mailwright serve` as a child process (the way users run it) and reads its ports.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { SERVICE_NODE_FLAGS } from '../../../src/server/node-flags.js';
import { ROOT, cleanEnv } from './service.js';

export interface ServeProcess {
  child: ChildProcess;
  httpUrl: string;
  smtpPort: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node <SERVICE_NODE_FLAGS> dist/cli.js serve` as `npm start` and mailwrightServer() do,
 * so that `child` is the service itself (a signal, kill -9 included, reaches it and nothing
 * else). `nodeFlags: []` starts plain `node dist/cli.js serve`, as `npx mailwright serve` runs it.
 */
export async function spawnServe(args: string[], timeoutMs = 20_000, opts: { nodeFlags?: readonly string[] } = {}): Promise<ServeProcess> {
  const child = spawn(process.execPath, [...(opts.nodeFlags ?? SERVICE_NODE_FLAGS), join(ROOT, 'dist', 'cli.js'), 'serve', '--http-port', '0', '--smtp-port', '0', '--log-level', 'warn', ...args], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const ready = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`mailwright serve did not print its ports within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const check = () => {
      const match = /HTTP (http:\/\/\S+) SMTP smtp:\/\/\S+:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve(match);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`mailwright serve exited early:\n${output}`));
    });
  });
  return { child, httpUrl: ready[1]!, smtpPort: Number(ready[2]), output: () => output, exited };
}
