// Owns the human log format of `mailwright serve` on a terminal: a pino destination that
// turns each JSON line into "time LEVEL [subsystem] message key=value …" (and an error's
// stack below it), instead of printing the JSON.
import type { DestinationStream } from 'pino';

const LEVELS: Record<number, { name: string; color: string }> = {
  10: { name: 'TRACE', color: '90' },
  20: { name: 'DEBUG', color: '36' },
  30: { name: 'INFO', color: '32' },
  40: { name: 'WARN', color: '33' },
  50: { name: 'ERROR', color: '31' },
  60: { name: 'FATAL', color: '35' },
};

/** Fields every line has or that are shown elsewhere on the line. */
const SHOWN_APART = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'subsystem', 'err']);

function paint(color: boolean, code: string, text: string): string {
  return color ? `\x1b[${code}m${text}\x1b[39m` : text;
}

function clock(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

function value(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (Array.isArray(v) && v.every((item) => typeof item !== 'object' || item === null)) return v.join(',');
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

/** One pino JSON line as a human line; a line that is not JSON is passed through. */
export function prettyLine(line: string, color = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line.endsWith('\n') ? line : `${line}\n`;
  }
  const level = LEVELS[Number(entry.level)] ?? { name: String(entry.level).toUpperCase(), color: '39' };
  const parts = [paint(color, '90', clock(Number(entry.time ?? Date.now()))), paint(color, level.color, level.name.padEnd(5))];
  if (typeof entry.subsystem === 'string') parts.push(paint(color, '90', `[${entry.subsystem}]`));
  const err = entry.err as { message?: string; stack?: string } | undefined;
  parts.push(String(entry.msg ?? err?.message ?? ''));
  for (const [key, v] of Object.entries(entry)) {
    if (!SHOWN_APART.has(key) && v !== undefined) parts.push(`${paint(color, '90', `${key}=`)}${value(v)}`);
  }
  // The stack starts with the error's message; without one, the message is a field.
  if (!err?.stack && err?.message && err.message !== entry.msg) parts.push(`${paint(color, '90', 'err=')}${value(err.message)}`);
  const stack = err?.stack ? `\n${err.stack.split('\n').map((l) => `    ${l.trim()}`).join('\n')}` : '';
  return `${parts.join(' ')}${stack}\n`;
}

/** A pino destination writing human lines to `out` (e.g. process.stdout). */
export function prettyDestination(out: { write(text: string): unknown }, options: { color: boolean }): DestinationStream {
  return { write: (line: string) => void out.write(prettyLine(line.trimEnd(), options.color)) };
}
