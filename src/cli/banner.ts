// Owns what `mailwright serve` tells a person once it listens: where the API, its docs, SMTP
// and the web UI are, the admin account, the API key (a new one shown once, with the
// `export` line that uses it), where the data lives, and which mail SMTP keeps: created
// mailboxes only, or (`--catch-all`) mail to any address at the served domains.
import { resolve } from 'node:path';

export interface BannerFacts {
  version: string;
  httpUrl: string;
  smtpUrl: string;
  adminEmail: string;
  /** The SQLite file or ':memory:' (ignored when `databaseUrl` is set). */
  data: string;
  databaseUrl: string | null;
  /** The `--data …` to repeat in suggested commands ('' for the default store). */
  storeArgs: string;
  /** A key created by this start (shown once), where the configured key came from, or none. */
  key: { created: string } | { configuredBy: string } | null;
  /** A one-time link that signs the admin in to set a password (the admin has none yet). */
  signInUrl?: string | null;
  /**
   * Which mail SMTP keeps: with `--catch-all`, the domains where any address gets a mailbox and
   * the account that owns them (`StartedServer.catchAll`); null: created mailboxes only. Left
   * out, the banner says nothing of it.
   */
  catchAll?: { domains: readonly string[]; owner: string } | null;
}

/** The line saying which mail SMTP keeps. */
export function mailMode(catchAll: { domains: readonly string[]; owner: string } | null): string {
  if (!catchAll) return 'Only created mailboxes accept mail (start with --catch-all to keep mail to any address)';
  return `Catch-all: mail to any address @${catchAll.domains.join(', @')} is kept (owner ${catchAll.owner})`;
}

/** The URL with its password replaced by `***`. */
export function maskPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');
  }
}

/** Where the store keeps its data, for people. */
export function dataLocation(data: string, databaseUrl: string | null): string {
  if (databaseUrl) return maskPassword(databaseUrl);
  return data === ':memory:' ? 'in memory (lost at exit)' : resolve(data);
}

/**
 * The lines printed once the service listens. The first line (`… HTTP <url> SMTP <url>`) and
 * `shown only now:` followed by the key on its own line are read by tools; keep their shape.
 */
export function banner(f: BannerFacts): string {
  const row = (label: string, text: string) => `  ${label.padEnd(10)} ${text}\n`;
  let out = `mailwright ${f.version} listening: HTTP ${f.httpUrl} SMTP ${f.smtpUrl}\n`;
  out += row('API', f.httpUrl);
  out += row('API docs', `${f.httpUrl}/docs`);
  out += row('SMTP', f.smtpUrl);
  out += row('Web UI', `${f.httpUrl}/`);
  out += row('Admin', f.adminEmail);
  out += row('Data', dataLocation(f.data, f.databaseUrl));
  if (f.catchAll !== undefined) out += row('Mail', mailMode(f.catchAll));
  if (f.signInUrl) out += row('Sign in', `${f.signInUrl}  (the admin's one-time link, 15 min: sets a password)`);
  if (f.key && 'created' in f.key) {
    out += `Created the admin account; its API key is shown only now:\n${f.key.created}\n`;
    out += `Use it from a shell with:\n  export MAILWRIGHT_API_KEY=${f.key.created}\n`;
  } else if (f.key) {
    out += row('API key', `the one given by ${f.key.configuredBy} (not shown again)`);
  } else {
    out += row('API key', 'not shown: the admin account made its key on an earlier start');
    out += row('', `a new one: mailwright keys create --email ${f.adminEmail}${f.storeArgs}`);
  }
  return out;
}
