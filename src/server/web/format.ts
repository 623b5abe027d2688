// Owns how the web UI writes values for people: dates, sizes, address lists, expiry choices.
import type { Address } from '../../protocol/index.js';

/** `2026-11-24 14:03:07 UTC` — one unambiguous form everywhere (scripts add local countdowns). */
export function formatDate(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatAddresses(list: readonly Address[]): string {
  if (list.length === 0) return '—';
  return list.map((a) => (a.name ? `${a.name} <${a.address}>` : a.address)).join(', ');
}

/** `1 hour`, `3 days`, `10 minutes`. */
export function formatDuration(ms: number): string {
  const units: Array<[number, string]> = [[86_400_000, 'day'], [3_600_000, 'hour'], [60_000, 'minute']];
  for (const [size, name] of units) {
    if (ms >= size && ms % size === 0) {
      const n = ms / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${Math.round(ms / 1000)} seconds`;
}

/** Helpers every template receives as `it.fmt`. */
export const fmt = { date: formatDate, bytes: formatBytes, addresses: formatAddresses, duration: formatDuration };
