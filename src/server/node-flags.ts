// Owns the Node and V8 flags the service is tuned for: those its process starts with (`npm start`,
// mailwrightServer()) and those `mailwright serve` sets in its own process. Kept apart from the
// CLI and the fixture so that both take them from one place without loading each other.

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
/**
 * V8 flags that `mailwright serve` sets in its own process as it starts serving (V8 reads them as
 * it runs, unlike the ones above, so they need no second process). `--semi-space-growth-factor=1`
 * keeps the young generation at its initial size instead of growing it under a stream of mail:
 * on Node 24 V8 lets it grow to 64 MB, and `npx mailwright serve` held 274 MB at 100,000 stored
 * messages without it, 135 MB with it (Node 20: 143 -> 114 MB). `--heap-growing-percent=50` is
 * the old-generation rule described below. Not set by `startServer()`: a process that embeds the
 * service keeps its own V8 settings.
 */
export const RUNTIME_SERVICE_FLAGS: readonly string[] = ['--semi-space-growth-factor=1', '--heap-growing-percent=50'];

export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=2', '--v8-pool-size=2', '--no-memory-reducer', '--heap-growing-percent=50'];
