// `mailwright serve` runs with the Node flags the service is tuned for (SERVICE_NODE_FLAGS)
// however it is started. `npx mailwright serve` and `node dist/cli.js serve` start Node without
// them, and V8 takes these flags only when it starts: v8.setFlagsFromString() later changes
// nothing the heap was set up with (measured: RSS at 100,000 stored messages ~126 MB either
// way, ~98 MB with the flags from the start). So such a start runs the service again with them:
// in the same process where Node can replace its own image (process.execve, Node >= 22.15 on
// POSIX), else in a child process that this one waits for, passing signals on and ending with
// its exit code; that child shuts down when this process goes away (its IPC channel closes).
import { spawn } from 'node:child_process';
import { missingServiceFlags } from '../server/node-flags.js';

/** Set in the environment of a service started again, so that it never starts itself once more. */
const RELAUNCHED = 'MAILWRIGHT_RELAUNCHED';
const FORWARDED: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

type Execve = (file: string, args: string[], env: NodeJS.ProcessEnv) => never;

/** Whether `argv` (without node and the script) asks to serve, rather than for help or another command. */
function servesWith(argv: readonly string[]): boolean {
  const options = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  return argv[0] === 'serve' && !options.includes('--help') && !options.includes('-h');
}

/**
 * Starts `mailwright serve` again with the service's Node flags when this process lacks some of
 * them. Returns true when the service now runs elsewhere (this process only waits for it), false
 * when this process should go on and run the command itself: another command, flags already
 * given (by hand they win, value and all), a process being debugged (`--inspect`), or a
 * service that is itself such a restart.
 */
export function relaunchWithServiceFlags(argv: readonly string[] = process.argv.slice(2)): boolean {
  if (process.env[RELAUNCHED] !== undefined) {
    delete process.env[RELAUNCHED];
    // Started by a waiting parent (Node without execve): shut down as on SIGTERM when it is gone.
    if (process.channel) {
      process.channel.unref();
      process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
    }
    return false;
  }
  const missing = missingServiceFlags(process.execArgv, process.env.NODE_OPTIONS);
  if (!servesWith(argv) || missing.length === 0 || process.execArgv.some((arg) => arg.startsWith('--inspect'))) return false;
  const args = [...missing, ...process.execArgv, ...process.argv.slice(1)];
  const env = { ...process.env, [RELAUNCHED]: '1' };
  const execve = (process as { execve?: Execve }).execve;
  if (typeof execve === 'function' && process.platform !== 'win32') {
    try {
      execve.call(process, process.execPath, [process.execPath, ...args], env);
    } catch {
      // Not allowed here (e.g. in a worker or a sandbox): fall back to a child process.
    }
  }
  const child = spawn(process.execPath, args, { env, stdio: ['inherit', 'inherit', 'inherit', 'ipc'] });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of FORWARDED) process.on(signal, forward);
  child.once('error', (error) => {
    process.stderr.write(`mailwright: could not start the service with its Node flags (${missing.join(' ')}): ${error.message}; start it as \`node ${missing.join(' ')} <path to mailwright>/dist/cli.js serve\`\n`);
    process.exit(1);
  });
  child.once('exit', (code, signal) => {
    for (const s of FORWARDED) process.off(s, forward);
    if (signal) process.kill(process.pid, signal);
    else process.exit(code ?? 1);
  });
  return true;
}
