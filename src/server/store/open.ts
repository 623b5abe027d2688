// Owns choosing and opening the store backend named by the configuration.
import type { ResolvedConfig } from '../context.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './store.js';

export async function openStore(config: Pick<ResolvedConfig, 'data' | 'databaseUrl'>): Promise<Store> {
  if (config.databaseUrl) {
    const { openPostgresStore } = await import('./postgres.js');
    return openPostgresStore(config.databaseUrl);
  }
  return openSqliteStore(config.data);
}
