// Owns how the CLI shows lists: an aligned text table for people, a JSON array for scripts.

/** A column: its heading and how a row shows in it. */
export type Column<T> = [heading: string, cell: (row: T) => string];

/** Rows as aligned columns under upper-case headings (two spaces apart), or `empty` when there are none. */
export function table<T>(rows: readonly T[], columns: ReadonlyArray<Column<T>>, empty: string): string {
  if (rows.length === 0) return `${empty}\n`;
  const cells = [columns.map(([heading]) => heading.toUpperCase()), ...rows.map((row) => columns.map(([, cell]) => cell(row)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return cells.map((line) => line.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n') + '\n';
}

/** `2025-01-31 09:05:00Z`: UTC, to the second. */
export function when(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

/** ISO 8601 for JSON output. */
export function iso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** "in 59m", "in 2d 3h", "expired" — how long until `ms`. */
export function fromNow(ms: number, now: number): string {
  const s = Math.floor((ms - now) / 1000);
  if (s <= 0) return 'expired';
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3_600), Math.floor((s % 3_600) / 60)];
  if (d > 0) return `in ${d}d ${h}h`;
  if (h > 0) return `in ${h}h ${m}m`;
  return m > 0 ? `in ${m}m` : `in ${s}s`;
}
