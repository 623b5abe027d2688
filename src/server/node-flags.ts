// The Node flags the service is tuned for. Kept apart from the CLI and the fixture so that both
// take them from one place without loading each other.

/**
 * Node flags the service is tuned for: `npm start` and `mailwrightServer()` pass them, and
 * `node <flags> dist/cli.js serve` takes them; `npx mailwright serve` runs without them, in one
 * process (V8 takes them only as it starts, and starting again would take a second process). V8 otherwise grows its young generation to 48 MB
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
