// Owns the HTTP application: fastify with TypeBox schemas, problem+json errors, API-key auth
// and quota, the routes, the OpenAPI document generated from the route schemas, and the web UI.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from '../context.js';
import { VERSION } from '../version.js';
import { InternalCalls, installAuth } from './auth.js';
import { drainUnreadBodies, frameworkProblem, installErrorHandling } from './problem.js';
import { configRoutes } from './routes/config.js';
import { emailRoutes } from './routes/emails.js';
import { mcpRoutes } from './routes/mcp.js';
import { systemRoutes } from './routes/system.js';
import { renderErrorPage, webPlugin } from '../web/plugin.js';

export async function buildApi(ctx: ServiceContext): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.log.child({ subsystem: 'api' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 1024 * 1024,
    return503OnClosing: true,
    // The client address and protocol come from X-Forwarded-* only from proxies the operator named (--trust-proxy).
    trustProxy: ctx.config.trustProxy,
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false } },
    // Errors raised before routing (a path segment over the router's limit, a malformed URL) are problem+json too.
    frameworkErrors: frameworkProblem,
  }).withTypeProvider<TypeBoxTypeProvider>();

  drainUnreadBodies(app);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'mailwright',
        version: VERSION,
        description:
          'Disposable mailboxes for end-to-end tests. Every call but /health needs an `X-API-Key` header; every authenticated answer carries ' +
          '`RateLimit-Policy` and `RateLimit` headers (IETF httpapi draft; unlimited roles report q=2147483647). Errors are application/problem+json ' +
          'with a stable `code`. Another account\'s mailbox or message answers 404, as if it did not exist.',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } } },
      security: [{ apiKey: [] }],
      tags: [
        { name: 'emails', description: 'Mailboxes and messages (key scope `emails`)' },
        { name: 'config', description: 'Account configuration and quota (key scope `config`)' },
        { name: 'webhooks', description: 'Webhooks and their delivery log (key scope `config`)' },
        { name: 'system', description: 'No key needed' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });

  installErrorHandling(app, { notFoundPage: (path) => renderErrorPage(404, 'Not found', `There is no page at ${path}. Go back to your mailboxes, or see the API documentation.`) });
  const internal = new InternalCalls();
  installAuth(app, ctx, internal);
  await app.register(systemRoutes);
  await app.register(emailRoutes, { ctx });
  await app.register(configRoutes, { ctx });
  await app.register(mcpRoutes, { ctx, internal });
  // The web UI in its own encapsulated scope: its cookies, sessions and form parsing never touch /api.
  await app.register(webPlugin, { ctx });
  return app;
}
