// Owns finding a Chromium for Playwright: Playwright's own download when installed, else a
// system Chromium/Chrome, with launch flags that work in containers and CI.
import { existsSync } from 'node:fs';
import { chromium } from '@playwright/test';

/** System browsers tried, in order, when Playwright's Chromium is not installed. */
export const SYSTEM_CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'] as const;

/** What {@link findChromium} looks at; replaceable to test the search. */
export interface ChromiumProbe {
  /** Where Playwright's own Chromium would be (it may not be installed). */
  playwrightPath(): string | undefined;
  exists(path: string): boolean;
  env: Record<string, string | undefined>;
}

const machine: ChromiumProbe = {
  playwrightPath() {
    try {
      return chromium.executablePath() || undefined;
    } catch {
      return undefined;
    }
  },
  exists: existsSync,
  get env() {
    return process.env;
  },
};

/** Where a usable Chromium was found. */
export interface ChromiumLocation {
  /** `playwright`: Playwright's own download; `system`: a system Chromium/Chrome; `none`: nothing found. */
  source: 'playwright' | 'system' | 'none';
  /** The executable; for `playwright` it is the one Playwright picks by itself. */
  path?: string;
}

/**
 * Finds a Chromium: Playwright's own when installed, otherwise the first existing of
 * /usr/bin/chromium, /usr/bin/chromium-browser, /usr/bin/google-chrome,
 * /usr/bin/google-chrome-stable, or the `CHROME_PATH` environment variable.
 */
export function findChromium(probe: ChromiumProbe = machine): ChromiumLocation {
  const own = probe.playwrightPath();
  if (own && probe.exists(own)) return { source: 'playwright', path: own };
  const fromEnv = probe.env.CHROME_PATH;
  for (const path of [...SYSTEM_CHROMIUM_PATHS, ...(fromEnv ? [fromEnv] : [])]) {
    if (probe.exists(path)) return { source: 'system', path };
  }
  return { source: 'none' };
}

/**
 * The Chromium to launch: `undefined` when Playwright's own Chromium is installed (let
 * Playwright pick it), otherwise the system browser {@link findChromium} found. `undefined`
 * as well when none is found (Playwright then reports its usual "run npx playwright
 * install" error).
 *
 * @example
 * ```ts
 * use: { launchOptions: { executablePath: chromiumExecutable() } }
 * ```
 */
export function chromiumExecutable(probe: ChromiumProbe = machine): string | undefined {
  const found = findChromium(probe);
  return found.source === 'system' ? found.path : undefined;
}

/** Launch options from {@link chromiumLaunchOptions}. */
export interface ChromiumLaunchOptions {
  /** Set only when a system browser is used. */
  executablePath?: string;
  /** Flags for quiet, reproducible runs; `--no-sandbox` only as root or in CI. */
  args: string[];
}

/**
 * `launchOptions` for Playwright's Chromium: the executable from {@link chromiumExecutable}
 * and `--disable-gpu`, `--disable-background-networking`, `--disable-component-update`,
 * `--no-first-run`, `--disable-sync`, plus `--no-sandbox` when running as root or in CI
 * (Chromium's sandbox cannot start there).
 *
 * @example
 * ```ts
 * // playwright.config.ts
 * use: { launchOptions: chromiumLaunchOptions() }
 * ```
 */
export function chromiumLaunchOptions(): ChromiumLaunchOptions {
  const args = ['--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root || process.env.CI) args.unshift('--no-sandbox');
  const executablePath = chromiumExecutable();
  return executablePath ? { executablePath, args } : { args };
}
