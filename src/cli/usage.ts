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
  1  failure while running: the store, a port in use, no such account or key, …
  2  usage error: unknown command or option, missing or invalid argument
`;

/** `mailwright --help`. */
export function mainUsage(specs: readonly CommandSpec[]): string {
  const commands = specs.map((s) => `  ${s.name.padEnd(18)} ${s.summary}`).join('\n');
  return `mailwright ${VERSION} — disposable mailboxes for end-to-end tests

Usage: mailwright COMMAND [options]

Commands:
${commands}

Run \`mailwright COMMAND --help\` for a command's options, e.g. \`mailwright keys create --help\`.

Store (every command):
${flagLines(STORE_FLAGS)}

${EXIT_CODES}`;
}
