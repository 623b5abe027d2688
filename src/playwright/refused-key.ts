// Owns the fixture's answer to a refused API key: which key, where it came from (the option,
// MAILWRIGHT_API_KEY, or mailwrightServer()), that the service at that URL does not know it,
// and the fix for that source, in one message.
import { MailwrightApiError } from '../client/index.js';
import { DEFAULT_PLAYWRIGHT_API_KEY } from './config.js';
import { describeKeySource, type ResolvedMailOptions } from './options.js';

/**
 * A 401 `invalid_api_key` rewritten for the fixture: which key, where it came from, that the
 * service at that URL does not know it, and the fix for that source. Other errors pass through.
 */
export function explainRefusedKey(error: unknown, options: Pick<ResolvedMailOptions, 'baseURL' | 'apiKey' | 'apiKeySource'>): unknown {
  if (!(error instanceof MailwrightApiError) || error.code !== 'invalid_api_key') return error;
  const isDefault = options.apiKey === DEFAULT_PLAYWRIGHT_API_KEY;
  const shown = isDefault || options.apiKey.length <= 12 ? options.apiKey : `${options.apiKey.slice(0, 10)}…`;
  const fromServerEntry = options.apiKeySource === 'server-default' || options.apiKeySource === 'server-option';
  const flag = isDefault ? `--api-key ${DEFAULT_PLAYWRIGHT_API_KEY}` : '--api-key <that key>';
  const fix = fromServerEntry
    ? `Outside CI, Playwright reuses a server already listening on that port (reuseExistingServer) instead of starting mailwrightServer()'s own, so the one answering was most likely started by hand with another key. ` +
      `Fix: restart it with \`npx mailwright serve ${flag}\`, or stop it so Playwright starts its own.`
    : `Fix: use a key of that service (\`npx mailwright keys create --email you@example.com\` prints one), or start the service with \`npx mailwright serve ${flag}\`.`;
  return new MailwrightApiError({
    status: error.status,
    code: error.code,
    detail: error.detail,
    method: error.method,
    url: error.url,
    ...(error.problem !== undefined ? { problem: error.problem } : {}),
    // No `cause`: its message repeats the generic way out this one replaces.
    message: `the service at ${options.baseURL} does not know the API key ${shown} (401 invalid_api_key); the key came from ${describeKeySource(options.apiKeySource)}. ${fix}`,
  });
}
