// Owns the unauthenticated API routes: health, the OpenAPI document and its /docs viewer (the
// front page `/` is the web UI's sign-in page).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { HealthResponse } from '../../../protocol/index.js';
import { VERSION } from '../../version.js';

export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    schema: { tags: ['system'], summary: 'Liveness; needs no key', response: { 200: HealthResponse } },
  }, async () => ({ status: 'ok' as const, version: VERSION }));

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
};
