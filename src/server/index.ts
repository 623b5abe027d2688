// `mailwright/server`: run the disposable-mail service in-process.
export { startServer, type StartedServer } from './start.js';
export { ConfigError, type ServerOptions } from './config.js';
export { DEFAULT_ROLES, DEFAULT_RETRY_SCHEDULE, type RoleLimits } from './context.js';
