// The Node flags the service is tuned for, and which of them a process was started without.
// Kept apart from the CLI and the fixture so that both take them from one place without
// loading each other.

/**
 * Node flags the service runs with. `mailwright serve` starts itself again with them when Node
 * was started without them (`npx mailwright serve`, `node dist/cli.js serve`); `npm start` and
 * `mailwrightServer()` pass them directly. V8 otherwise grows its young generation to 48 MB
 * under a steady stream of mail, and its four helper threads each keep a malloc arena of their
 * own: with these the service stays ~10–25 MB nearer its idle size. Without
 * `--no-memory-reducer` V8 shrinks the heap of a service that went quiet, and the next burst of
 * mail ran ~20 % slower for its first thousand messages here (README, *Numbers*). With
 * `--heap-growing-percent=50` V8 lets its old generation grow to 1.5 times what survived its
 * last full collection before it collects again; its own rule let a first burst of mail leave
 * ~25 MB of garbage there in about one fill out of three (RSS right after 20,000 messages:
 * 106-110 or 130-133 MB; 104-109 with it, same msgs/s).
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--v8-pool-size=2', '--no-memory-reducer', '--heap-growing-percent=50'];

/** A flag's name without its value, its `no-` and its spelling (V8 takes `_` for `-`). */
const flagName = (flag: string): string => flag.slice(2).split('=')[0]!.replaceAll('_', '-').replace(/^no-/, '');

/**
 * The {@link SERVICE_NODE_FLAGS} a process was started without. A flag counts as given when the
 * command line or `NODE_OPTIONS` names it with any value, or negated (`--memory-reducer`): a
 * value set by hand wins over ours.
 */
export function missingServiceFlags(execArgv: readonly string[], nodeOptions = ''): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter((arg) => arg.startsWith('--')).map(flagName));
  return SERVICE_NODE_FLAGS.filter((flag) => !given.has(flagName(flag)));
}
