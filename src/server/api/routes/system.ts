// Owns the unauthenticated API routes: /health and the OpenAPI document (/openapi.json). Its
// /docs viewer is mounted in app.ts; the front page `/` is the web UI's sign-in page.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthResponse } from '../../../protocol/index.js';
import { VERSION } from '../../version.js';

export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: { tags: ['system'], summary: 'Liveness; needs no key', response: { 200: HealthResponse } },
  }, async () => ({ status: 'ok' as const, version: VERSION }));

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
