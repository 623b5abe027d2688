// The one way tests build the server's configuration and the context its subsystems take:
// the real option defaults (resolveConfig) for a quiet service on free ports, then overrides.
import { pino } from 'pino';
import { resolveConfig } from '../../src/server/config.js';
import type { Clock, ResolvedConfig, ServiceContext } from '../../src/server/context.js';
import { ServiceBus } from '../../src/server/events.js';
import type { Store } from '../../src/server/store/store.js';

/** The configuration `startServer` would resolve for a silent in-memory service on 127.0.0.1, with `overrides`. */
export function testConfig(overrides: Partial<ResolvedConfig> = {}): ResolvedConfig {
  return { ...resolveConfig({ host: '127.0.0.1', httpPort: 0, smtpPort: 0, data: ':memory:', logLevel: 'silent' }), ...overrides };
}

/** A service context around `store` and `clock`: a fresh bus and a silent logger. */
export function testContext(store: Store, clock: Clock, overrides: Partial<ResolvedConfig> = {}): ServiceContext {
  return { config: testConfig(overrides), store, bus: new ServiceBus(), log: pino({ level: 'silent' }), clock };
}
