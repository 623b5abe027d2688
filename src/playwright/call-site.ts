// Owns finding where in the user's spec a mailwright call was made: the first stack frame
// outside this package, Playwright and Node, as `file.ts:12` and as a Location for steps.
import { basename, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folders of this package's own modules: frames inside them are ours. This file lives in
 * `dist/playwright/` (built) or `src/playwright/` (run from source); the package's other folder
 * counts too, since a built package's source maps (`--enable-source-maps`, Playwright's stack
 * traces) report its frames at `<package>/src/…`: outside node_modules for a linked package.
 */
const PACKAGE_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OWN_ROOTS = [join(PACKAGE_ROOT, 'dist', sep), join(PACKAGE_ROOT, 'src', sep)];

/** Whether a stack frame's file is this package's own (built, or its source through a source map). */
export function isOwnFile(file: string): boolean {
  return OWN_ROOTS.some((root) => file.startsWith(root)) || file.includes('/node_modules/') || file.includes('\\node_modules\\');
}

/** Where a call was made in the user's code. */
export interface CallSite {
  /** `signup.spec.ts:12`. */
  readonly where: string;
  /** Absolute file, line and column, as Playwright's step `location` takes them. */
  readonly location: { file: string; line: number; column: number };
  /** The stack frame line, for an error's stack. */
  readonly frame: string;
}

const FRAME = /(?:\(|\s|^)((?:file:\/\/)?\/[^()]*?|[A-Za-z]:\\[^()]*?):(\d+):(\d+)\)?$/;

/** The first frame of the current stack outside mailwright, Playwright, node_modules and Node itself. */
export function callSite(): CallSite | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  for (const raw of stack.split('\n').slice(1)) {
    const frame = raw.trim();
    const m = FRAME.exec(frame);
    if (!m?.[1]) continue;
    const file = m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
    if (isOwnFile(file)) continue;
    const line = Number(m[2]);
    const column = Number(m[3]);
    return { where: `${basename(file)}:${line}`, location: { file, line, column }, frame };
  }
  return undefined;
}
