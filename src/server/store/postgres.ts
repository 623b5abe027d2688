// Placeholder for the Postgres backend (scale-out); not built yet.
import type { Store } from './store.js';

export async function openPostgresStore(url: string): Promise<Store> {
  throw Object.assign(new Error(`--database-url ${url.replace(/\/\/[^@]*@/, '//***@')}: the Postgres store is not available in this version; use the embedded SQLite store (--data FILE)`), { code: 'MW_ERR_CONFIG' });
}
