// Owns how the CLI declares flags, the flags every command shares (store, --help) and the help
// texts: each command declares its flags once, with their help, and both `parseArgs` options and
// `--help` output are made from that.
import type { ParseArgsConfig } from 'node:util';
import { VERSION } from '../server/version.js';

export interface Flag {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  /** Placeholder of the value in help, e.g. `E` for `--email E`. */
  arg?: string;
  /** A number flag: what its value must be, for the message about a value like `-5`. */
  numeric?: 'positive' | 'whole';
  help: string;
}

export type Flags = Record<string, Flag>;

export interface CommandSpec {
  /** `serve`, `keys create`, … */
  name: string;
  /** What follows the name in the usage line. */
  synopsis: string;
  /** One line for the command list. */
  summary: string;
  /** More lines for the command's own help. */
  about?: string;
  flags: Flags;
}

/** The store every command opens. */
export const STORE_FLAGS: Flags = {
  data: { type: 'string', arg: 'FILE|:memory:', help: 'SQLite file (default ./.mailwright/mailwright.db)   MAILWRIGHT_DATA' },
  'database-url': { type: 'string', arg: 'URL', help: 'postgres://… shared store                          MAILWRIGHT_DATABASE_URL' },
};

export const HELP_FLAG: Flags = { help: { type: 'boolean', short: 'h', help: 'show this help' } };

/** The running service the HTTP commands talk to (they open no store). */
export const SERVICE_FLAGS: Flags = {
  url: { type: 'string', arg: 'URL', help: "the service's address (default: the one `serve` records, else http://127.0.0.1:8025)   MAILWRIGHT_URL" },
  'api-key': { type: 'string', arg: 'KEY', help: 'an API key of the account (mw_…)   MAILWRIGHT_API_KEY' },
};

/** What a number flag's value must be, in words: `a positive whole number`. */
export function numericRule(kind: NonNullable<Flag['numeric']>): string {
  return kind === 'positive' ? 'a positive whole number' : 'a whole number (0 or more)';
}

/**
 * Edit distance (optimal string alignment): the fewest single-character insertions, deletions,
 * substitutions and swaps of two neighbours that turn `a` into `b` (`emial` is 1 from `email`).
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate `typed` most likely meant, for a "did you mean": the nearest by edit distance
 * when it is close (at most a third of the word, one edit for short words), else the only one
 * that `typed` begins; undefined when none is near enough or two are equally near.
 */
export function nearest(typed: string, candidates: Iterable<string>): string | undefined {
  const word = typed.toLowerCase();
  const unique = [...new Set(candidates)];
  const scored = unique.map((candidate) => ({ candidate, distance: editDistance(word, candidate.toLowerCase()) })).sort((a, b) => a.distance - b.distance);
  const [best, second] = scored;
  const limit = Math.max(1, Math.floor(word.length / 3));
  if (best && best.distance > 0 && best.distance <= limit && (!second || second.distance > best.distance)) return best.candidate;
  const prefixed = word.length >= 2 ? unique.filter((candidate) => candidate.toLowerCase().startsWith(word)) : [];
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** `parseArgs` options for these flags. */
export function parseOptions(flags: Flags): NonNullable<ParseArgsConfig['options']> {
  // parseArgs rejects `short: undefined`, so only the keys that are set.
  return Object.fromEntries(Object.entries(flags).map(([name, { type, multiple, short }]) => [name, { type, ...(multiple && { multiple }), ...(short && { short }) }]));
}

function flagLines(flags: Flags): string {
  return Object.entries(flags)
    .map(([name, flag]) => {
      const left = `${flag.short ? `-${flag.short}, ` : ''}--${name}${flag.arg ? ` ${flag.arg}` : ''}`;
      return `  ${left.padEnd(24)} ${flag.help}`;
    })
    .join('\n');
}

/** A command's own help (`mailwright keys create --help`). */
export function commandUsage(spec: CommandSpec): string {
  const about = spec.about ? `\n${spec.about.trimEnd()}\n` : '';
  return `Usage: mailwright ${spec.name} ${spec.synopsis}\n\n${spec.summary[0]!.toUpperCase()}${spec.summary.slice(1)}.\n${about}\nOptions:\n${flagLines(spec.flags)}\n`;
}

/** The help of a command group (`mailwright keys --help`): its commands. */
export function groupUsage(group: string, specs: readonly CommandSpec[]): string {
  const lines = specs.map((s) => `  mailwright ${s.name} ${s.synopsis}\n      ${s.summary}`).join('\n');
  return `Usage:\n${lines}\n\nRun \`mailwright ${specs[0]?.name ?? group} --help\` for a command's options.\n`;
}

const EXIT_CODES = `Exit codes:
  0  success
  1  failure while running: the store, a port in use, no such account or key, the service not reachable or refusing the key, …
  2  usage error: unknown command or option (the nearest is suggested), missing or invalid argument
`;

/** `mailwright --help`. */
export function mainUsage(specs: readonly CommandSpec[]): string {
  const commands = specs.map((s) => `  ${s.name.padEnd(18)} ${s.summary}`).join('\n');
  const using = (flags: Flags) => specs.filter((s) => Object.keys(flags).every((name) => name in s.flags)).map((s) => s.name);
  return `mailwright ${VERSION} — disposable mailboxes for end-to-end tests

Usage: mailwright COMMAND [options]

Commands:
${commands}

Run \`mailwright COMMAND --help\` for a command's options, e.g. \`mailwright keys create --help\`.

Store (serve, and the commands that administer it directly: accounts, keys, mailboxes list, quota):
${flagLines(STORE_FLAGS)}

Service (${using(SERVICE_FLAGS).join(', ')}: they talk to a running service over HTTP):
${flagLines(SERVICE_FLAGS)}

${EXIT_CODES}`;
}
